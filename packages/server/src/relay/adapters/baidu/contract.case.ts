import { baiduPromptTokens, FAKE_BAIDU_KEY, startFakeBaidu } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase } from '../../../test-support/contract-case.js';

/** ERNIE: the model's endpoint in the path, the OAuth access token in the query. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'baidu',
    fake: 'baidu',
    startFake: () => startFakeBaidu(),
    hop: { passthrough: true },
    key: FAKE_BAIDU_KEY,
    model: 'ERNIE-4.0-8K',
    embedModel: 'Embedding-V1',
    text: 'Hello from the fake ERNIE',
    chat: {
      path: '/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro',
      // The access token travels in the query.
      pathOnly: true,
      auth: (sent) => expect(sent.url).toMatch(/\?access_token=24\./),
      // ERNIE's body: a temperature of 0 is left to the model's default (ERNIE's range excludes it).
      converted: { body: (cx) => ({ messages: cx.messages, user_id: 'u-1' }), promptTokens: (sent) => baiduPromptTokens(sent) },
    },
  },
];
