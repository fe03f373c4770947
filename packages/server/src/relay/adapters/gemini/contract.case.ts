import { expectedGeminiUsage, startFakeGemini } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase, ConvertedChat } from '../../../test-support/contract-case.js';
import { DEFAULT_SAFETY_SETTINGS } from './formats/openai-gemini/request.js';

/**
 * An OpenAI caller's chat as Gemini's body: roles and parts, default safety settings; `user` and
 * `metadata` are account features left out. Shared with every channel speaking Gemini (Vertex).
 */
export const geminiConvertedChat: ConvertedChat = {
  body: () => ({ contents: [{ role: 'user', parts: [{ text: 'one two three' }] }], generationConfig: { temperature: 0 }, safetySettings: DEFAULT_SAFETY_SETTINGS }),
  promptTokens: (sent) => expectedGeminiUsage(sent).promptTokenCount,
};

/** Gemini generateContent: the key in `x-goog-api-key`, streams on `:streamGenerateContent?alt=sse`. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'gemini',
    fake: 'gemini',
    startFake: () => startFakeGemini(),
    hop: { passthrough: true },
    model: 'gemini-2.0-flash',
    text: 'Hello from the fake Gemini',
    chat: {
      path: '/v1beta/models/gemini-2.0-flash:generateContent',
      auth: (sent, cx) => expect(sent.headers['x-goog-api-key']).toBe(cx.key),
      converted: geminiConvertedChat,
    },
    stream: { path: '/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse' },
  },
];
