export { startFakeGemini } from './server.js';
export type { FakeGemini, FakeGeminiFault, FakeGeminiOptions, GeminiRecordedRequest } from './types.js';
export { FAKE_GEMINI_ARGS, FAKE_GEMINI_THOUGHT, FAKE_GEMINI_WORDS, IMAGE_TOKENS, expectedGeminiUsage, type GeminiUsage } from './usage.js';
