/**
 * The most tokens a model can answer in one call, used to bound a request that sets no
 * max_tokens (docs/ledger.md "spend limits"): the reservation covers the prompt plus this many
 * completion tokens. Figures are the providers' documented output limits; the first matching
 * prefix wins, and an unknown model gets DEFAULT_OUTPUT_CAP.
 */
const CAPS: Array<[prefix: string, tokens: number]> = [
  ['gpt-4o-mini', 16_384],
  ['gpt-4o', 16_384],
  ['chatgpt-4o', 16_384],
  ['gpt-4.1', 32_768],
  ['gpt-4-turbo', 4_096],
  ['gpt-4-1106', 4_096],
  ['gpt-4-0125', 4_096],
  ['gpt-4-32k', 8_192],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo-instruct', 4_096],
  ['gpt-3.5', 4_096],
  ['gpt-5', 128_000],
  ['o1-mini', 65_536],
  ['o1', 100_000],
  ['o3', 100_000],
  ['o4', 100_000],
  ['claude-3-7', 64_000],
  ['claude-3-5', 8_192],
  ['claude-3', 4_096],
  ['claude-sonnet-4', 64_000],
  ['claude-opus-4', 32_000],
  ['claude', 8_192],
  ['gemini-2.5', 65_536],
  ['gemini', 8_192],
  ['deepseek-reasoner', 65_536],
  ['deepseek', 8_192],
  ['text-davinci', 4_096],
];

export const DEFAULT_OUTPUT_CAP = 8_192;

export function outputCap(model: string): number {
  for (const [prefix, tokens] of CAPS) if (model.startsWith(prefix)) return tokens;
  return DEFAULT_OUTPUT_CAP;
}

/** Models that take `max_completion_tokens` and refuse `max_tokens` (OpenAI reasoning models). */
export function usesMaxCompletionTokens(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model);
}
