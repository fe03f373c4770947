export { startFakeVertex } from './server.js';
export { makeServiceAccount } from './service-account.js';
export type { FakeServiceAccount, FakeVertex, FakeVertexOptions, VertexRecordedRequest } from './types.js';
