export { FAKE_HUNYUAN_WORDS, FAKE_TENCENT_KEY, hunyuanPromptTokens, startFakeHunyuan, type FakeHunyuan, type FakeHunyuanFault, type HunyuanRecordedRequest } from './server.js';
