import { dashscopePromptTokens, FAKE_DASHSCOPE_KEY, startFakeDashScope } from '@modelgate/testkit';
import type { ContractCase } from '../../../test-support/contract-case.js';

/** DashScope text-generation: messages under `input`, sampling under `parameters`; the key as a bearer token. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'ali',
    fake: 'ali',
    startFake: () => startFakeDashScope(),
    hop: { passthrough: true },
    key: FAKE_DASHSCOPE_KEY,
    model: 'qwen-plus',
    embedModel: 'text-embedding-v3',
    text: 'Hello from the fake Qwen',
    chat: {
      path: '/api/v1/services/aigc/text-generation/generation',
      converted: {
        body: (cx) => ({ model: cx.model, input: { messages: cx.messages }, parameters: { result_format: 'message', temperature: 0 } }),
        promptTokens: (sent) => dashscopePromptTokens(sent),
      },
    },
  },
];
