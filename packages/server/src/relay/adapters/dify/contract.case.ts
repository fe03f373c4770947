import { difyTokens, FAKE_DIFY_ANSWER, startFakeDify } from '@modelgate/testkit';
import type { ContractCase } from '../../../test-support/contract-case.js';

const KEY = 'app-contract-key';

/** A Dify app: one flattened query, a per-user `user`, nothing of OpenAI's sampling (the app decides); Dify's usage billed. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'dify',
    fake: 'dify',
    startFake: () => startFakeDify({ appKeys: [KEY] }),
    hop: { passthrough: true },
    key: KEY,
    model: 'dify',
    text: FAKE_DIFY_ANSWER,
    chat: {
      path: '/v1/chat-messages',
      converted: {
        body: (cx) => ({ inputs: {}, query: 'USER: \none two three\n', response_mode: 'blocking', user: `modelgate-user-${cx.userId}` }),
        promptTokens: (sent) => difyTokens(String(sent.query)),
      },
    },
  },
];
