export { FAKE_CLOUDFLARE_ACCOUNT, startFakeCloudflare, type CloudflareRecordedRequest, type FakeCloudflare, type FakeCloudflareOptions } from './server.js';
