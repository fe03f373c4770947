import { harnessOpenAI, OPENAI_FAKE_TEXT, type ContractCase } from '../../../test-support/contract-case.js';

/** OpenAI itself: the caller's body passed through to OpenAI's own paths, streams asked for their usage. */
export const contractCases: readonly ContractCase[] = [
  { slug: 'openai', fake: 'openai', startFake: harnessOpenAI, model: 'gpt-4o-mini', text: OPENAI_FAKE_TEXT, chat: { path: '/v1/chat/completions' }, stream: { asksUsage: true } },
];
