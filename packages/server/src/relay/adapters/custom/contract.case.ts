import { harnessOpenAI, OPENAI_FAKE_TEXT, type ContractCase } from '../../../test-support/contract-case.js';

/** Custom: the base URL is the full upstream URL, `{model}` replaced by the mapped model. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'custom',
    fake: 'openai',
    startFake: harnessOpenAI,
    baseUrl: (hop) => `${hop}/custom/{model}/chat`,
    model: 'gpt-4o-mini',
    text: OPENAI_FAKE_TEXT,
    chat: { path: '/custom/gpt-4o-mini/chat' },
    stream: { asksUsage: true },
    embeddings: { skip: 'a Custom channel is one full URL, so the hop cannot tell an embeddings call from a chat' },
  },
];
