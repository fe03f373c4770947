import { modelOutputLimit } from '@modelgate/shared';

/**
 * The most tokens a model can answer in one call, used to bound a request that sets no
 * max_tokens (docs/ledger.md "spend limits"): the reservation covers the prompt plus this many
 * completion tokens. The documented limits live once in shared (model-limits.ts); a model not
 * listed there gets DEFAULT_OUTPUT_CAP.
 */
export const DEFAULT_OUTPUT_CAP = 8_192;

export function outputCap(model: string): number {
  return modelOutputLimit(model) ?? DEFAULT_OUTPUT_CAP;
}

/** Models that take `max_completion_tokens` and refuse `max_tokens` (OpenAI reasoning models). */
export function usesMaxCompletionTokens(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model);
}
