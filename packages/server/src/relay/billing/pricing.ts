/**
 * Pricing for the relay. The cost formula itself (price resolution, usage, per-call, image and
 * reservation quotas) lives in @modelgate/shared, so the console explains a charge with the very
 * function the relay bills with; this file adds what only the server needs: reading an upstream's
 * usage object and the log row's price text.
 */
import { ratioText, type Price, type Usage } from '@modelgate/shared';

export { emptyUsage, estimateQuota, imageQuota, priceFor, usageQuota, type Price, type PricingTables } from '@modelgate/shared';

/** Reads an OpenAI-shaped `usage` object (chat, completions, embeddings, gpt-image). */
export function readUsage(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const u = raw as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
  const pd = (u.prompt_tokens_details ?? u.input_tokens_details ?? {}) as Record<string, unknown>;
  const cd = (u.completion_tokens_details ?? u.output_tokens_details ?? {}) as Record<string, unknown>;
  const prompt = n(u.prompt_tokens ?? u.input_tokens);
  const completion = n(u.completion_tokens ?? u.output_tokens);
  if (prompt === 0 && completion === 0 && n(u.total_tokens) === 0) return undefined;
  return {
    promptTokens: prompt || (completion === 0 ? n(u.total_tokens) : 0),
    completionTokens: completion,
    // DeepSeek's older replies report cache hits only as `prompt_cache_hit_tokens`.
    cachedTokens: n(pd.cached_tokens) || n(u.prompt_cache_hit_tokens),
    cacheWriteTokens: n(pd.cache_creation_tokens),
    reasoningTokens: n(cd.reasoning_tokens),
    audioInputTokens: n(pd.audio_tokens),
    audioOutputTokens: n(cd.audio_tokens),
  };
}

/** Log `content` (reference §3.7). */
export function describePrice(p: Price, totalTokens: number): string {
  const head =
    p.modelPrice >= 0
      ? `模型价格 ${ratioText(p.modelPrice)}，分组倍率 ${ratioText(p.groupRatio)}`
      : `模型倍率 ${ratioText(p.modelRatio)}，补全倍率 ${ratioText(p.completionRatio)}，分组倍率 ${ratioText(p.groupRatio)}`;
  return totalTokens === 0 && p.modelPrice < 0 ? `${head}（可能是上游超时）` : head;
}
