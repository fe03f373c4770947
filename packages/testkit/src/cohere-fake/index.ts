export { cohereChatInputTokens, FAKE_COHERE_TOOL_ARGS, FAKE_COHERE_WORDS, startFakeCohere, type CohereRecordedRequest, type FakeCohere, type FakeCohereFault } from './server.js';
