export { startFakeSuno, type FakeSuno, type FakeSunoOptions, type SunoFakeTask } from './server.js';
