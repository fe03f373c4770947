import { expect } from 'vitest';
import { harnessOpenAI, OPENAI_FAKE_TEXT, type ContractCase } from '../../../test-support/contract-case.js';

/** Azure OpenAI: one deployment per model (dots removed), the api-version from `other`, the key in `api-key`. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'azure',
    fake: 'openai',
    startFake: harnessOpenAI,
    other: '2024-10-21',
    model: 'gpt-4o-mini',
    text: OPENAI_FAKE_TEXT,
    chat: {
      path: '/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21',
      auth: (sent, cx) => expect(sent.headers['api-key']).toBe(cx.key),
    },
    stream: { asksUsage: true },
  },
];
