export { startFakeAnthropic } from './server.js';
export type { AnthropicRecordedRequest, FakeAnthropic, FakeAnthropicFault, FakeAnthropicOptions } from './types.js';
export { FAKE_SIGNATURE } from './reply.js';
export { FAKE_CLAUDE_WORDS, FAKE_THINKING, FAKE_TOOL_INPUT, expectedMessagesUsage, type AnthropicUsage } from './usage.js';
