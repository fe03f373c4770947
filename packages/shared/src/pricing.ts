/**
 * The cost formula (spec §9, reference §5): price resolution and the quota of a usage, a call, an
 * image and a reservation. The relay bills with these functions and the console's log detail
 * explains a charge with them. No I/O: the tables come in as arguments.
 */
import { completionRatio, priceKey } from './completion-ratio.js';
import {
  AUDIO_COMPLETION_RATIO,
  DEFAULT_CACHE_CREATION_RATIO_RULES,
  DEFAULT_CACHE_RATIO,
  DEFAULT_CACHE_RATIO_RULES,
  DEFAULT_COMPLETION_RATIO,
  DEFAULT_CREATE_CACHE_RATIO,
  DEFAULT_MODEL_PRICE,
  DEFAULT_MODEL_RATIO,
  MISSING_MODEL_RATIO,
  defaultAudioRatio,
} from './default-ratios.js';

export { completionRatio } from './completion-ratio.js';

/**
 * Normalised usage. The prompt includes cached reads, cache writes and audio input (an Anthropic
 * reply's `input_tokens` is only the uncached part: its prompt is input + cache read + cache
 * creation); the completion includes reasoning.
 */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the provider's prompt cache. */
  cachedTokens: number;
  /** Prompt tokens written to the provider's prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens: number;
  reasoningTokens: number;
  audioInputTokens: number;
  audioOutputTokens: number;
}

export function emptyUsage(): Usage {
  return { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, audioInputTokens: 0, audioOutputTokens: 0 };
}

/** The option tables a price is resolved from (ModelRatio, CompletionRatio, CacheRatio, CreateCacheRatio, ModelPrice, GroupRatio, QuotaPerUnit). */
export interface PricingTables {
  modelRatio: Record<string, number>;
  completionRatio: Record<string, number>;
  /** CacheRatio: a cached prompt token's share of the input price, per model. */
  cacheRatio: Record<string, number>;
  /** CreateCacheRatio: a prompt token written to the cache, as a share of the input price, per model. */
  createCacheRatio: Record<string, number>;
  modelPrice: Record<string, number>;
  groupRatio: Record<string, number>;
  quotaPerUnit: number;
}

/** The default tables as the options hold them on a new install (QuotaPerUnit 500 000, group "default" at 1), with overrides. */
export function defaultPricingTables(over: Partial<PricingTables> = {}): PricingTables {
  return {
    modelRatio: DEFAULT_MODEL_RATIO,
    completionRatio: DEFAULT_COMPLETION_RATIO,
    cacheRatio: DEFAULT_CACHE_RATIO,
    createCacheRatio: DEFAULT_CREATE_CACHE_RATIO,
    modelPrice: DEFAULT_MODEL_PRICE,
    groupRatio: { default: 1 },
    quotaPerUnit: 500_000,
    ...over,
  };
}

/** Everything a request's bill depends on, fixed when the request starts. */
export interface Price {
  model: string;
  /** Dollars per call, or -1 in ratio mode. */
  modelPrice: number;
  modelRatio: number;
  /** False when the model is missing from ModelRatio and the fallback ratio was used. */
  ratioFound: boolean;
  completionRatio: number;
  groupRatio: number;
  cacheRatio: number;
  /** Share of the input price a prompt token written to the cache costs (Claude 1.25). */
  cacheCreationRatio: number;
  audioRatio: number;
  audioCompletionRatio: number;
  quotaPerUnit: number;
}

/** A finite number from an option map, or undefined. */
function entry(table: Record<string, number> | undefined, key: string): number | undefined {
  const v = table?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function ruleFor(model: string, rules: ReadonlyArray<readonly [string, number]>): number {
  for (const [prefix, ratio] of rules) if (model.startsWith(prefix)) return ratio;
  return 1;
}

/** Cache-read ratio: the CacheRatio option's entry, else the first matching prefix rule, else 1. */
export function cacheRatio(model: string, option?: Record<string, number>): number {
  return entry(option, priceKey(model)) ?? ruleFor(model, DEFAULT_CACHE_RATIO_RULES);
}

/** Cache-write ratio: the CreateCacheRatio option's entry, else the first matching prefix rule, else 1. */
export function cacheCreationRatio(model: string, option?: Record<string, number>): number {
  return entry(option, priceKey(model)) ?? ruleFor(model, DEFAULT_CACHE_CREATION_RATIO_RULES);
}

/** Resolves the price of `model` for `group`. */
export function priceFor(model: string, group: string, t: PricingTables): Price {
  const key = priceKey(model);
  const fixed = t.modelPrice[key];
  const ratio = t.modelRatio[key];
  const g = t.groupRatio[group];
  return {
    model,
    modelPrice: typeof fixed === 'number' && Number.isFinite(fixed) ? fixed : -1,
    modelRatio: typeof ratio === 'number' && Number.isFinite(ratio) ? ratio : MISSING_MODEL_RATIO,
    ratioFound: typeof ratio === 'number',
    completionRatio: completionRatio(model, t.completionRatio),
    groupRatio: typeof g === 'number' && Number.isFinite(g) ? g : 1,
    cacheRatio: cacheRatio(model, t.cacheRatio),
    cacheCreationRatio: cacheCreationRatio(model, t.createCacheRatio),
    audioRatio: defaultAudioRatio(model),
    audioCompletionRatio: AUDIO_COMPLETION_RATIO,
    quotaPerUnit: t.quotaPerUnit,
  };
}

/** A fixed per-call price in quota units: price × QuotaPerUnit × group ratio. */
export function perCallQuota(p: Pick<Price, 'modelPrice' | 'quotaPerUnit' | 'groupRatio'>, times = 1): number {
  return Math.round(p.modelPrice * p.quotaPerUnit * p.groupRatio * times);
}

/** The terms of a ratio-mode bill, as `usageQuota` sums them. */
export interface UsageTerms {
  /** Prompt tokens that are neither cached, cache writes nor audio. */
  textIn: number;
  cached: number;
  cacheWrite: number;
  audioIn: number;
  /** Completion tokens that are not audio. */
  textOut: number;
  audioOut: number;
  /** Text units: textIn + cached × cache ratio + cacheWrite × cache creation ratio + round(textOut × completion ratio). */
  text: number;
  /** Audio units: round(audioIn × audio ratio + audioOut × audio ratio × audio completion ratio). */
  audio: number;
}

/** Splits a usage into the parts that are priced differently; out-of-range counts are clamped. */
export function usageTerms(p: Price, u: Usage): UsageTerms {
  const cached = Math.min(Math.max(u.cachedTokens, 0), u.promptTokens);
  const cacheWrite = Math.min(Math.max(u.cacheWriteTokens || 0, 0), u.promptTokens - cached);
  const audioIn = Math.min(Math.max(u.audioInputTokens, 0), u.promptTokens - cached - cacheWrite);
  const audioOut = Math.min(Math.max(u.audioOutputTokens, 0), u.completionTokens);
  const textIn = u.promptTokens - cached - cacheWrite - audioIn;
  const textOut = u.completionTokens - audioOut;
  const text = textIn + cached * p.cacheRatio + cacheWrite * p.cacheCreationRatio + Math.round(textOut * p.completionRatio);
  const audio = audioIn || audioOut ? Math.round(audioIn * p.audioRatio + audioOut * p.audioRatio * p.audioCompletionRatio) : 0;
  return { textIn, cached, cacheWrite, audioIn, textOut, audioOut, text, audio };
}

/**
 * Quota of a usage in ratio mode:
 * `round((input + round(output × completionRatio)) × modelRatio × groupRatio)`, where cached input
 * tokens count `cacheRatio` each, cache writes `cacheCreationRatio` each, and audio tokens count `audioRatio` (output audio also × the audio
 * completion ratio). At least 1 when anything was used and the ratios are not zero.
 */
export function usageQuota(p: Price, u: Usage): number {
  if (p.modelPrice >= 0) return perCallQuota(p);
  const { text, audio } = usageTerms(p, u);
  const ratio = p.modelRatio * p.groupRatio;
  const quota = Math.round((text + audio) * ratio);
  if (quota === 0 && ratio !== 0 && u.promptTokens + u.completionTokens > 0) return 1;
  return quota;
}

/** Image size factor (reference §5.3): 256² 0.4, 512² 0.45, 1024² 1, tall or wide 2. */
export function imageSizeFactor(size: string): number {
  switch (size) {
    case '256x256':
      return 0.4;
    case '512x512':
      return 0.45;
    case '1024x1024':
      return 1;
    default:
      return /^\d+x\d+$/.test(size) ? 2 : 1;
  }
}

/**
 * Quota of an image generation: ModelPrice[model] per image, else 0.0025 × modelRatio dollars;
 * × size factor × quality (dall-e-3 hd: 2, 1.5 for the large sizes) × n × group ratio.
 */
export function imageQuota(p: Price, req: { size: string; quality: string; n: number }): number {
  const unit = p.modelPrice >= 0 ? p.modelPrice : 0.0025 * p.modelRatio;
  const large = req.size === '1024x1792' || req.size === '1792x1024';
  const quality = p.model === 'dall-e-3' && req.quality === 'hd' ? (large ? 1.5 : 2) : 1;
  return Math.round(unit * imageSizeFactor(req.size) * quality * req.n * p.groupRatio * p.quotaPerUnit);
}

/**
 * The reservation for a text request: the per-call price, or the prompt bound plus the reply
 * bound (max_tokens, or PreConsumedQuota tokens when the client set none) at full ratios.
 */
export function estimateQuota(p: Price, promptTokens: number, maxTokens: number | undefined, preConsumedTokens: number): number {
  if (p.modelPrice >= 0) return perCallQuota(p);
  const completion = maxTokens && maxTokens > 0 ? maxTokens : preConsumedTokens;
  return usageQuota(p, { ...emptyUsage(), promptTokens, completionTokens: completion });
}
