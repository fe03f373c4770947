import { harnessOpenAI, OPENAI_FAKE_TEXT, type ContractCase } from '../../../test-support/contract-case.js';
import { adapters } from './adapter.js';

/** Vendors whose chat path is not OpenAI's `/v1/chat/completions` (reference §11). */
const CHAT_PATH: Readonly<Record<string, string>> = {
  deepseek: '/chat/completions',
  perplexity: '/chat/completions',
  minimax: '/v1/text/chatcompletion_v2',
};

/** Every OpenAI-wire vendor of this folder: the caller's body passed through, against the fake OpenAI. */
export const contractCases: readonly ContractCase[] = adapters.map((a) => ({
  slug: a.slug,
  fake: 'openai',
  startFake: harnessOpenAI,
  model: 'gpt-4o-mini',
  text: OPENAI_FAKE_TEXT,
  chat: { path: CHAT_PATH[a.slug] ?? '/v1/chat/completions' },
  stream: { asksUsage: true },
}));
