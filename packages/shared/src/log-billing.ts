/**
 * The billing facts of a consume log row (spec §3 "Usage log entry": its `other` JSON). The relay
 * writes them with `consumeLogOther`; the console reads them back with `explainCharge`, which runs
 * the same cost formula the relay billed with.
 */
import { perCallQuota, usageQuota, usageTerms, type Price, type Usage, type UsageTerms } from './pricing.js';
import { quotaToDollars } from './quota.js';
import { videoQuota } from './video.js';

export interface LogOther {
  model_ratio?: number;
  completion_ratio?: number;
  group_ratio?: number;
  /** Dollars per call, or -1 in ratio mode. */
  model_price?: number;
  /** First-token time, ms. */
  frt?: number;
  admin_info?: { use_channel?: unknown[] };
  cache_tokens?: number;
  cache_ratio?: number;
  /** Prompt tokens written to the provider's prompt cache, and what each cost (Claude 1.25). */
  cache_creation_tokens?: number;
  cache_creation_ratio?: number;
  reasoning_tokens?: number;
  ws?: boolean;
  audio?: boolean;
  audio_input?: number;
  audio_output?: number;
  /** Prompt tokens that are not audio (cached ones included). */
  text_input?: number;
  text_output?: number;
  audio_ratio?: number;
  audio_completion_ratio?: number;
  /** What the user could not pay of the charge (the ledger charged less). */
  shortfall?: number;
  /** The model was missing from ModelRatio and billed at the fallback ratio. */
  ratio_missing?: boolean;
  /** A video billed per second (issue 34): its length, resolution tier and price per second in dollars. */
  video?: { seconds: number; resolution: string; usd_per_second: number };
  [key: string]: unknown;
}

/** The `other` of a consume row: the price and usage it was billed from, and how the request went. */
export function consumeLogOther(p: Price, u: Usage, run: { frt: number; useChannel: string[]; shortfall: number }): LogOther {
  const other: LogOther = {
    model_ratio: p.modelRatio,
    group_ratio: p.groupRatio,
    completion_ratio: p.completionRatio,
    model_price: p.modelPrice,
    frt: run.frt,
    admin_info: { use_channel: run.useChannel },
  };
  if (u.cachedTokens) {
    other.cache_tokens = u.cachedTokens;
    other.cache_ratio = p.cacheRatio;
  }
  if (u.cacheWriteTokens) {
    other.cache_creation_tokens = u.cacheWriteTokens;
    other.cache_creation_ratio = p.cacheCreationRatio;
  }
  if (u.reasoningTokens) other.reasoning_tokens = u.reasoningTokens;
  if (u.audioInputTokens || u.audioOutputTokens) {
    Object.assign(other, {
      audio: true,
      audio_input: u.audioInputTokens,
      audio_output: u.audioOutputTokens,
      text_input: u.promptTokens - u.audioInputTokens,
      text_output: u.completionTokens - u.audioOutputTokens,
      audio_ratio: p.audioRatio,
      audio_completion_ratio: p.audioCompletionRatio,
    });
  }
  if (run.shortfall > 0) other.shortfall = run.shortfall;
  if (!p.ratioFound && p.modelPrice < 0) other.ratio_missing = true;
  return other;
}

/** `other` is a JSON string; "" or junk must not break the log table (reference gotcha G4). */
export function parseLogOther(text: string | null | undefined): LogOther {
  if (!text || !text.trim()) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as LogOther) : {};
  } catch {
    return {};
  }
}

const num = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** The channel chain a request went through (admins only). */
export function usedChannels(other: LogOther): string[] {
  const list = other.admin_info?.use_channel;
  return Array.isArray(list) ? list.map(String) : [];
}

export interface LogRowCounts {
  prompt_tokens: number;
  completion_tokens: number;
}

/** The price a row was billed at, as far as its `other` records it. */
export function priceFromLog(model: string, other: LogOther, quotaPerUnit: number): Price {
  return {
    model,
    modelPrice: num(other.model_price, -1),
    modelRatio: num(other.model_ratio, 0),
    ratioFound: other.ratio_missing !== true,
    completionRatio: num(other.completion_ratio, 1),
    groupRatio: num(other.group_ratio, 1),
    cacheRatio: num(other.cache_ratio, 1),
    cacheCreationRatio: num(other.cache_creation_ratio, 1),
    audioRatio: num(other.audio_ratio, 1),
    audioCompletionRatio: num(other.audio_completion_ratio, 1),
    quotaPerUnit,
  };
}

export function usageFromLog(row: LogRowCounts, other: LogOther): Usage {
  return {
    promptTokens: row.prompt_tokens || 0,
    completionTokens: row.completion_tokens || 0,
    cachedTokens: num(other.cache_tokens, 0),
    cacheWriteTokens: num(other.cache_creation_tokens, 0),
    reasoningTokens: num(other.reasoning_tokens, 0),
    audioInputTokens: num(other.audio_input, 0),
    audioOutputTokens: num(other.audio_output, 0),
  };
}

export type ChargeExplanation =
  | { mode: 'price'; price: number; groupRatio: number; quota: number; dollars: number }
  | { mode: 'video'; seconds: number; resolution: string; usdPerSecond: number; groupRatio: number; quota: number; dollars: number }
  | {
      mode: 'ratio';
      modelRatio: number;
      completionRatio: number;
      groupRatio: number;
      cacheRatio: number;
      cacheCreationRatio: number;
      audioRatio: number;
      audioCompletionRatio: number;
      terms: UsageTerms;
      /** What the cost formula charges for this usage, in quota units. */
      quota: number;
      dollars: number;
    };

/** How a consume row's charge came about, recomputed with the relay's own formula. */
export function explainCharge(model: string, row: LogRowCounts, other: LogOther, quotaPerUnit: number): ChargeExplanation {
  const p = priceFromLog(model, other, quotaPerUnit);
  const v = other.video;
  if (v && typeof v === 'object' && typeof v.seconds === 'number' && typeof v.usd_per_second === 'number') {
    const quota = videoQuota({ seconds: v.seconds, resolution: String(v.resolution ?? ''), usdPerSecond: v.usd_per_second, groupRatio: p.groupRatio, quotaPerUnit: p.quotaPerUnit });
    return { mode: 'video', seconds: v.seconds, resolution: String(v.resolution ?? ''), usdPerSecond: v.usd_per_second, groupRatio: p.groupRatio, quota, dollars: quotaToDollars(quota, quotaPerUnit) };
  }
  if (p.modelPrice >= 0) {
    const quota = perCallQuota(p);
    return { mode: 'price', price: p.modelPrice, groupRatio: p.groupRatio, quota, dollars: quotaToDollars(quota, quotaPerUnit) };
  }
  const usage = usageFromLog(row, other);
  const quota = usageQuota(p, usage);
  return {
    mode: 'ratio',
    modelRatio: p.modelRatio,
    completionRatio: p.completionRatio,
    groupRatio: p.groupRatio,
    cacheRatio: p.cacheRatio,
    cacheCreationRatio: p.cacheCreationRatio,
    audioRatio: p.audioRatio,
    audioCompletionRatio: p.audioCompletionRatio,
    terms: usageTerms(p, usage),
    quota,
    dollars: quotaToDollars(quota, quotaPerUnit),
  };
}
