export { startFakeEpay } from './server.js';
export { epayMd5, signFields } from './sign.js';
export type { FakeEpay, FakeEpayOptions, FakeEpayOrder, NotifyOptions, NotifyResult } from './types.js';
