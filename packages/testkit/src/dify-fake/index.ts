export { difyTokens, difyUsageOf, FAKE_DIFY_ANSWER, startFakeDify, type DifyRecordedRequest, type FakeDify, type FakeDifyOptions } from './server.js';
