import { FAKE_CLOUDFLARE_ACCOUNT, startFakeCloudflare } from '@modelgate/testkit';
import { OPENAI_FAKE_TEXT, type ContractCase } from '../../../test-support/contract-case.js';

/** Workers AI's OpenAI-compatible endpoint under the channel's account id (`other`); the body passes through. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'cloudflare',
    fake: 'cloudflare',
    startFake: () => startFakeCloudflare(),
    hop: { passthrough: true },
    other: FAKE_CLOUDFLARE_ACCOUNT,
    model: '@cf/meta/llama-3.1-8b-instruct',
    text: OPENAI_FAKE_TEXT,
    chat: { path: `/client/v4/accounts/${FAKE_CLOUDFLARE_ACCOUNT}/ai/v1/chat/completions` },
  },
];
