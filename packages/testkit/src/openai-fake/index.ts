export { startFakeOpenAI } from './server.js';
export type { FakeBalance, FakeFault, FakeOpenAI, FakeOpenAIOptions, RecordedFile, RecordedRequest } from './types.js';
export { FAULT_HEADER, defaultErrorFor } from './faults.js';
export { DEFAULT_FAKE_MODELS } from './models.js';
export { DEFAULT_BALANCE } from './billing.js';
export { FAKE_EMBEDDING_DIMENSIONS, fakeEmbedding } from './embeddings.js';
export { FAKE_PNG } from './images.js';
export { SPEECH_BYTES_PER_CHAR, fakeSpeechLength, fakeTranscript } from './audio.js';
export { FAKE_TOOL_ARGUMENTS, chooseToolCall } from './tools.js';
export { MALFORMED_SSE_PAYLOAD } from './respond.js';
export {
  DEFAULT_CHUNK_COUNT,
  countFakeTokens,
  expectedChatUsage,
  expectedCompletionUsage,
  expectedEmbeddingUsage,
  fakeReplyText,
  type ChatUsage,
  type CompletionUsage,
  type EmbeddingUsage,
  type FakeUsageOptions,
} from './usage.js';
export { parseSseData, readSseData } from './sse-client.js';
export { AGENT_COMMAND, AGENT_EXEC_SCRIPT, AGENT_MARKER, agentAnswer, agentCall, type AgentCall, type AgentTool } from './agent-scenario.js';
