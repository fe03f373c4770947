export { baiduPromptTokens, FAKE_BAIDU_KEY, FAKE_BAIDU_WORDS, startFakeBaidu, type BaiduRecordedRequest, type FakeBaidu, type FakeBaiduFault } from './server.js';
