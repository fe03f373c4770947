export { FAKE_ZHIPU_KEY, FAKE_ZHIPU_TOOL_ARGS, FAKE_ZHIPU_WORDS, startFakeZhipu, zhipuPromptTokens, type FakeZhipu, type FakeZhipuFault, type ZhipuRecordedRequest } from './server.js';
