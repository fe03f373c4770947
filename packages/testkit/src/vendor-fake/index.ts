export { FAKE_QIANFAN_V2_KEY, FAKE_VENDOR_KEY, startFakeVendor, type FakeVendor, type VendorRecordedRequest } from './server.js';
export { FAKE_REASONING_TEXT, FAKE_REASONING_WORDS, FAKE_VENDOR_TEXT, FAKE_VENDOR_WORDS, vendorPromptTokens } from './shared.js';
export { SLOPPY_TIMINGS, type VendorName } from './vendors.js';
