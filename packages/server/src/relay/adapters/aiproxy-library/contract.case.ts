import { FAKE_AIPROXY_LIBRARY_ID, startFakeAIProxyLibrary } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase } from '../../../test-support/contract-case.js';

const ANSWER = 'Hello from the fake library';

/** AIProxy's library: the last user message asked of the channel's library (`other`), the key in `api-key`. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'aiproxy-library',
    fake: 'aiproxy-library',
    startFake: () => startFakeAIProxyLibrary({ answer: ANSWER, documents: [] }),
    hop: { passthrough: true },
    other: FAKE_AIPROXY_LIBRARY_ID,
    model: 'gpt-3.5-turbo',
    text: ANSWER,
    chat: {
      path: '/api/library/ask',
      auth: (sent, cx) => expect(sent.headers['api-key']).toBe(cx.key),
      // No usage comes back: counted locally (OpenAI's rule, as PaLM).
      converted: {
        body: (cx) => ({ model: cx.model, query: 'one two three', libraryId: FAKE_AIPROXY_LIBRARY_ID, stream: false }),
        promptTokens: () => 10,
      },
    },
  },
];
