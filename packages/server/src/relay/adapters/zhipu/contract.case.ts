import { FAKE_ZHIPU_KEY, startFakeZhipu, zhipuPromptTokens } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase, SentRequest } from '../../../test-support/contract-case.js';

/** Both generations sign a JWT from the `id.secret` key. */
const jwt = (sent: SentRequest) => expect(sent.headers.authorization).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
const common = { fake: 'zhipu', startFake: () => startFakeZhipu(), hop: { passthrough: true }, key: FAKE_ZHIPU_KEY, text: 'Hello from the fake Zhipu' } as const;

export const contractCases: readonly ContractCase[] = [
  {
    ...common,
    slug: 'zhipu',
    model: 'chatglm_pro',
    chat: {
      path: '/api/paas/v3/model-api/chatglm_pro/invoke',
      auth: jwt,
      // v3's `prompt` request: the model is in the path.
      converted: { body: (cx) => ({ prompt: cx.messages, temperature: 0 }), promptTokens: (sent) => zhipuPromptTokens(sent) },
    },
  },
  {
    ...common,
    slug: 'zhipu-v4',
    model: 'glm-4',
    embedModel: 'embedding-3',
    chat: {
      path: '/api/paas/v4/chat/completions',
      auth: jwt,
      // Reduced to Zhipu's documented fields: `user` becomes `user_id`, `metadata` is left out.
      converted: { body: (cx) => ({ model: cx.model, messages: cx.messages, temperature: 0, user_id: 'u-1' }), promptTokens: (sent) => zhipuPromptTokens(sent) },
    },
  },
];
