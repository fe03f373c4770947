import { emptyUsage, type Usage } from '@modelgate/shared';
import { isObj } from '../../../../formats/shared/wire.js';

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/**
 * `usageMetadata` → normalised usage (providers-international §2.3, §2.5). `promptTokenCount`
 * already includes the cached part; tool-use prompt tokens are input too. Thoughts are billed as
 * completion (`candidatesTokenCount` excludes them) and reported as reasoning.
 */
export function geminiUsage(raw: unknown): Usage | undefined {
  if (!isObj(raw)) return undefined;
  const thoughts = n(raw.thoughtsTokenCount);
  const prompt = n(raw.promptTokenCount) + n(raw.toolUsePromptTokenCount);
  const completion = n(raw.candidatesTokenCount) + thoughts;
  if (prompt + completion === 0) return undefined;
  return { ...emptyUsage(), promptTokens: prompt, completionTokens: completion, cachedTokens: Math.min(n(raw.cachedContentTokenCount), prompt), reasoningTokens: thoughts };
}

/** Normalised usage → `usageMetadata`, for replies written to a Gemini caller. */
export function usageMetadata(u: Usage | undefined): Record<string, number> {
  if (!u) return { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 };
  const thoughts = Math.min(u.reasoningTokens, u.completionTokens);
  const out: Record<string, number> = {
    promptTokenCount: u.promptTokens,
    candidatesTokenCount: u.completionTokens - thoughts,
    totalTokenCount: u.promptTokens + u.completionTokens,
  };
  if (thoughts) out.thoughtsTokenCount = thoughts;
  if (u.cachedTokens) out.cachedContentTokenCount = u.cachedTokens;
  return out;
}

/** The usage object of a reply, camelCase or snake_case (both are accepted on the wire). */
export function usageField(json: Record<string, unknown>): unknown {
  return json.usageMetadata ?? json.usage_metadata;
}
