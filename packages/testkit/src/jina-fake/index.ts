export { jinaTokens, startFakeJina, type FakeJina, type JinaRecordedRequest } from './server.js';
