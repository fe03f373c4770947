export { startFakeMj, type FakeMj, type FakeMjOptions, type MjRecordedRequest } from './server.js';
export type { MjFakeTask, MjSubmitReply } from './tasks.js';
