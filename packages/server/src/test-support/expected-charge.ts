/**
 * The quota a test expects the server to charge, computed by the very functions the relay bills with
 * (`priceFor`, `usageQuota`, `imageQuota` in @modelgate/shared). Tests state the inputs — a model
 * whose shipped default price applies, or the ratios the test itself configured — and never restate
 * the formula: an inline `Math.round((p + c × cr) × r)` drifted from the server's rounding before
 * (the completion term is rounded on its own, then the sum), and a copy cannot notice such a change.
 */
import { defaultPricingTables, emptyUsage, imageQuota, perCallQuota, priceFor, usageQuota, type Price, type PricingTables, type Usage } from '@modelgate/shared';

/** The price a test expects: a model's default price on a new install, then the fields the test set. */
export interface ChargePrice extends Partial<Omit<Price, 'model' | 'ratioFound'>> {
  /**
   * A model priced by the shipped default tables (ModelRatio, CompletionRatio, CacheRatio,
   * CreateCacheRatio, ModelPrice, QuotaPerUnit 500 000). Without one, the price starts neutral:
   * every ratio 1, no fixed price, QuotaPerUnit 500 000, and the test names the ratios it set.
   */
  model?: string;
  /** The caller's group (GroupRatio of a new install: every group at 1); `groupRatio` overrides it. */
  group?: string;
  /** Option tables the test changed, merged over the defaults before the price is resolved. */
  tables?: Partial<PricingTables>;
}

/** Token counts as the log row shows them: `prompt` includes cached reads, cache writes and audio input. */
export interface ChargeTokens {
  prompt?: number;
  completion?: number;
  cached?: number;
  cacheWrite?: number;
  reasoning?: number;
  audioIn?: number;
  audioOut?: number;
}

/** A price with every ratio 1 and no fixed price: the starting point when the test names the ratios itself. */
function neutralPrice(): Price {
  const t = defaultPricingTables();
  return {
    model: '',
    modelPrice: -1,
    modelRatio: 1,
    ratioFound: true,
    completionRatio: 1,
    groupRatio: 1,
    cacheRatio: 1,
    cacheCreationRatio: 1,
    audioRatio: 1,
    audioCompletionRatio: 2,
    quotaPerUnit: t.quotaPerUnit,
  };
}

/** The `Price` the server resolves for these inputs. */
export function expectedPrice(p: ChargePrice = {}): Price {
  const { model, group = 'default', tables, ...fields } = p;
  const base = model === undefined ? neutralPrice() : priceFor(model, group, defaultPricingTables(tables));
  const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<Price>;
  return { ...base, ...set };
}

function usageOf(t: ChargeTokens): Usage {
  return {
    ...emptyUsage(),
    promptTokens: t.prompt ?? 0,
    completionTokens: t.completion ?? 0,
    cachedTokens: t.cached ?? 0,
    cacheWriteTokens: t.cacheWrite ?? 0,
    reasoningTokens: t.reasoning ?? 0,
    audioInputTokens: t.audioIn ?? 0,
    audioOutputTokens: t.audioOut ?? 0,
  };
}

/**
 * The quota one request with this usage costs: the usage's ratio-mode quota, or the per-call price
 * when the model has a fixed price (ModelPrice), exactly as the relay settles it.
 */
export function expectedCharge(price: ChargePrice, tokens: ChargeTokens = {}): number {
  return usageQuota(expectedPrice(price), usageOf(tokens));
}

/** The quota of `times` calls at a fixed per-call price (ModelPrice × QuotaPerUnit × group ratio). */
export function expectedPerCallCharge(price: ChargePrice, times = 1): number {
  return perCallQuota(expectedPrice(price), times);
}

/** The quota of an image generation (size factor, dall-e-3 HD quality, n images). */
export function expectedImageCharge(price: ChargePrice, req: { size: string; quality?: string; n?: number }): number {
  return imageQuota(expectedPrice(price), { size: req.size, quality: req.quality ?? 'standard', n: req.n ?? 1 });
}
