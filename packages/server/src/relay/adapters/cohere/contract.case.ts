import { cohereChatInputTokens, startFakeCohere } from '@modelgate/testkit';
import type { ContractCase } from '../../../test-support/contract-case.js';

/** Cohere Chat v2: roles kept, `user` and `metadata` left out (account features). */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'cohere',
    fake: 'cohere',
    startFake: () => startFakeCohere(),
    hop: { passthrough: true },
    model: 'command-r-08-2024',
    text: 'Hello from the fake Cohere',
    chat: {
      path: '/v2/chat',
      converted: {
        body: (cx) => ({ model: cx.model, messages: cx.messages, temperature: 0 }),
        promptTokens: (sent) => cohereChatInputTokens(sent),
      },
    },
  },
];
