import { describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_RATIO, DEFAULT_COMPLETION_RATIO, DEFAULT_CREATE_CACHE_RATIO, DEFAULT_MODEL_RATIO } from './default-ratios.js';
import { cacheCreationRatio, cacheRatio, completionRatio, defaultPricingTables, emptyUsage, priceFor, type PricingTables, usageQuota } from './pricing.js';

/** The current (2025–2026) models: default prices, completion ratio layers and the cache ratio options. */
const tables = (over: Partial<PricingTables> = {}): PricingTables => defaultPricingTables({ groupRatio: { default: 1, vip: 0.5 }, ...over });

/** $ per 1M input tokens and output ÷ input, as the defaults price a model. */
function listed(model: string): [input: number, output: number] {
  const p = priceFor(model, 'default', tables());
  return [p.modelRatio * 2, p.modelRatio * 2 * p.completionRatio];
}

describe('default prices of current models (USD per 1M tokens, input / output)', () => {
  it.each([
    ['claude-opus-4-8', 5, 25],
    ['claude-opus-4-5-20251101', 5, 25],
    ['claude-opus-4-1-20250805', 15, 75],
    ['claude-sonnet-4-6', 3, 15],
    ['claude-sonnet-4-5-20250929', 3, 15],
    ['claude-haiku-4-5-20251001', 1, 5],
    ['claude-sonnet-5-5', 2, 10],
    ['gpt-5', 1.25, 10],
    ['gpt-5-mini', 0.25, 2],
    ['gpt-5-nano', 0.05, 0.4],
    ['gpt-5.1-codex', 1.25, 10],
    ['gpt-5.2', 1.75, 14],
    ['gpt-5.4', 2.5, 15],
    ['gpt-5.4-nano', 0.2, 1.25],
    ['gpt-5.5', 5, 30],
    ['gpt-4.1', 2, 8],
    ['gpt-4.1-mini', 0.4, 1.6],
    ['o3', 2, 8],
    ['o4-mini', 1.1, 4.4],
    ['o3-pro', 20, 80],
    ['gemini-2.5-pro', 1.25, 10],
    ['gemini-2.5-flash', 0.3, 2.5],
    ['gemini-2.5-flash-lite', 0.1, 0.4],
    ['gemini-3-pro-preview', 2, 12],
    ['gemini-3-flash-preview', 0.5, 3],
    ['deepseek-chat', 0.28, 0.42],
    ['deepseek-reasoner', 0.28, 0.42],
    ['glm-4.6', 0.6, 2.2],
    ['glm-4.5-air', 0.2, 1.1],
  ] as const)('%s: $%d / $%d', (model, input, output) => {
    const [i, o] = listed(model);
    expect(i).toBeCloseTo(input, 10);
    expect(o).toBeCloseTo(output, 10);
  });

  it('prices the RMB-listed models at ¥ × 500 / 7.3 / 1000 (qwen3-max ¥2.5 / ¥10 per 1M)', () => {
    const p = priceFor('qwen3-max', 'default', tables());
    expect(p.modelRatio).toBeCloseTo((2.5 * 500) / 7.3 / 1000, 12);
    expect(p.completionRatio).toBe(4);
  });
});

describe('completion ratio layers', () => {
  it('fixed rules (Claude 4.x, gpt-5, gpt-4.1, o3/o4) win over a CompletionRatio entry', () => {
    const option = { 'claude-opus-4-8': 1, 'gpt-5': 1, 'gpt-4.1': 1, o3: 1, 'o4-mini': 1 };
    expect(['claude-opus-4-8', 'gpt-5', 'gpt-4.1', 'o3', 'o4-mini'].map((m) => completionRatio(m, option))).toEqual([5, 8, 4, 4, 4]);
    // A dated or unknown member of a fixed family follows its rule.
    expect(completionRatio('claude-haiku-4-5-20991231', {})).toBe(5);
    expect(completionRatio('gpt-5-mini-2099-01-01', {})).toBe(8);
  });

  it('default rules (gpt-5.x, Gemini 2.5 / 3, DeepSeek) give way to a CompletionRatio entry', () => {
    expect(completionRatio('gpt-5.5', {})).toBe(6);
    expect(completionRatio('gpt-5.5', { 'gpt-5.5': 7 })).toBe(7);
    expect(completionRatio('gpt-5.1-codex-mini', {})).toBe(8);
    expect(completionRatio('gemini-2.5-flash-preview-09-2025', {})).toBeCloseTo(2.5 / 0.3, 12);
    expect(completionRatio('gemini-3-pro-preview', { 'gemini-3-pro-preview': 9 })).toBe(9);
    expect(completionRatio('gemini-2.0-flash', { 'gemini-2.0-flash': 9 })).toBe(4);
    expect(completionRatio('deepseek-chat', {})).toBe(1.5);
    expect(completionRatio('deepseek-chat', { 'deepseek-chat': 2 })).toBe(2);
  });
});

describe('cache ratio options', () => {
  it('an option entry wins over the prefix rule, the prefix rule over 1', () => {
    expect(cacheRatio('gpt-5', { 'gpt-5': 0.3 })).toBe(0.3);
    expect(cacheRatio('gpt-5-2099-01-01', {})).toBe(0.1);
    expect(cacheRatio('my-model', {})).toBe(1);
    expect(cacheCreationRatio('claude-opus-4-8', { 'claude-opus-4-8': 2 })).toBe(2);
    expect(cacheCreationRatio('claude-opus-4-8', {})).toBe(1.25);
    expect(cacheCreationRatio('gpt-5', {})).toBe(1);
    // Opus 5.5 reads the cache at 0.05: only the option's entry says so.
    expect(priceFor('claude-opus-5-5', 'default', tables()).cacheRatio).toBe(0.05);
    expect(priceFor('claude-opus-5-5', 'default', tables({ cacheRatio: {} })).cacheRatio).toBe(0.1);
  });

  it('bills a gpt-5 call with cached tokens at 0.1 of the input price, exactly', () => {
    // gpt-5: ratio 0.625, completion 8. Prompt 10 000 of which 8 000 cached, 500 completion tokens.
    const usage = { ...emptyUsage(), promptTokens: 10_000, cachedTokens: 8_000, completionTokens: 500 };
    const p = priceFor('gpt-5', 'default', tables());
    expect([p.modelRatio, p.completionRatio, p.cacheRatio]).toEqual([0.625, 8, 0.1]);
    // (2 000 + 8 000 × 0.1 + 500 × 8) × 0.625 = 6 800 × 0.625 = 4 250 quota ($0.0085).
    expect(usageQuota(p, usage)).toBe(4_250);
    expect(usageQuota(priceFor('gpt-5', 'vip', tables()), usage)).toBe(2_125);
    // The operator's CacheRatio entry changes the bill: cached tokens at the full price.
    expect(usageQuota(priceFor('gpt-5', 'default', tables({ cacheRatio: { 'gpt-5': 1 } })), usage)).toBe((10_000 + 4_000) * 0.625);
  });

  it('bills a Claude 4.x call with cache reads and writes through the options', () => {
    // claude-sonnet-4-6: ratio 1.5; prompt 1 000 = 100 uncached + 600 read + 300 written; 100 completion.
    const usage = { ...emptyUsage(), promptTokens: 1_000, cachedTokens: 600, cacheWriteTokens: 300, completionTokens: 100 };
    expect(usageQuota(priceFor('claude-sonnet-4-6', 'default', tables()), usage)).toBe(Math.round((100 + 60 + 375 + 500) * 1.5));
    const custom = tables({ createCacheRatio: { 'claude-sonnet-4-6': 2 } });
    expect(usageQuota(priceFor('claude-sonnet-4-6', 'default', custom), usage)).toBe(Math.round((100 + 60 + 600 + 500) * 1.5));
  });

  it('default tables hold only finite, non-negative ratios of priced models', () => {
    for (const table of [DEFAULT_CACHE_RATIO, DEFAULT_CREATE_CACHE_RATIO, DEFAULT_COMPLETION_RATIO]) {
      for (const [model, v] of Object.entries(table)) {
        expect(Number.isFinite(v) && v >= 0, model).toBe(true);
        if (!model.includes('*') && model !== 'gpt-4-all') expect(Object.hasOwn(DEFAULT_MODEL_RATIO, model), model).toBe(true);
      }
    }
  });
});
