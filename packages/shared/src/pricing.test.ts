import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO } from './default-ratios.js';
import { completionRatio, defaultPricingTables, estimateQuota, imageQuota, perCallQuota, priceFor, usageQuota } from './pricing.js';

const tables = defaultPricingTables({ groupRatio: { default: 1, vip: 0.5, free: 0 } });

const u = (prompt: number, completion: number, extra: Partial<Record<'cachedTokens' | 'cacheWriteTokens' | 'audioInputTokens' | 'audioOutputTokens', number>> = {}) => ({
  promptTokens: prompt,
  completionTokens: completion,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  audioInputTokens: 0,
  audioOutputTokens: 0,
  ...extra,
});

describe('completionRatio (fixed rules win over the option)', () => {
  it.each([
    ['gpt-3.5-turbo', 3],
    ['gpt-3.5-turbo-0125', 3],
    ['gpt-3.5-turbo-1106', 2],
    ['gpt-3.5-turbo-16k', 4 / 3],
    ['gpt-4', 2],
    ['gpt-4-turbo-2024-04-09', 3],
    ['gpt-4-1106-preview', 3],
    ['gpt-4o', 4],
    ['gpt-4o-2024-05-13', 3],
    ['gpt-4o-mini', 4],
    ['o1-mini', 4],
    ['chatgpt-4o-latest', 3],
    ['claude-2.1', 3],
    ['claude-3-opus-20240229', 5],
    ['mistral-large-latest', 3],
    ['gemini-1.5-pro', 4],
    ['command-r', 3],
    ['command-r-plus', 5],
    ['command-r-08-2024', 4],
    ['command-light', 2],
    ['deepseek-coder', 2],
    ['ERNIE-Speed-8K', 2],
    ['gpt-4-gizmo-g-abc', 2],
    ['gpt-4o-gizmo-g-abc', 3],
    ['gpt-4-all', 2],
    ['text-embedding-3-small', 1],
  ])('%s → %d', (model, ratio) => {
    expect(completionRatio(model, DEFAULT_COMPLETION_RATIO)).toBeCloseTo(ratio, 10);
  });

  it('uses the option only when no rule matches', () => {
    expect(completionRatio('my-model', { 'my-model': 7 })).toBe(7);
    expect(completionRatio('gpt-4', { 'gpt-4': 7 })).toBe(2);
  });
});

describe('usageQuota', () => {
  it.each([
    // model, group, prompt, completion, expected
    ['gpt-4', 'default', 3, 5, (3 + 10) * 15],
    ['gpt-4', 'vip', 3, 5, Math.round((3 + 10) * 15 * 0.5)],
    ['gpt-4o-mini', 'default', 100, 50, Math.round((100 + 200) * 0.075)],
    ['gpt-3.5-turbo-16k', 'default', 10, 10, Math.round((10 + Math.round(10 * (4 / 3))) * 1.5)],
    ['text-embedding-3-small', 'default', 4, 0, 1],
    ['glm-4-flash', 'default', 1000, 1000, 0],
    ['gpt-4', 'free', 1000, 1000, 0],
    ['unknown-model', 'default', 1, 1, (1 + 1) * 30],
    ['gpt-4', 'default', 0, 0, 0],
  ] as const)('%s in %s: %d + %d tokens → %d', (model, group, prompt, completion, expected) => {
    expect(usageQuota(priceFor(model, group, tables), u(prompt, completion))).toBe(expected);
  });

  it('bills cached prompt tokens at the cache ratio', () => {
    // gpt-4o: ratio 1.25, cache 0.5 → (600 + 400×0.5 + 100×4) × 1.25.
    expect(usageQuota(priceFor('gpt-4o', 'default', tables), u(1000, 100, { cachedTokens: 400 }))).toBe(Math.round((600 + 200 + 400) * 1.25));
  });

  it('bills Claude cache reads at 0.1 and cache writes at 1.25 of the input price', () => {
    // claude-3-5-sonnet-20241022: ratio 1.5, completion 5; prompt 1000 = 100 uncached + 600 read + 300 written.
    const p = priceFor('claude-3-5-sonnet-20241022', 'default', tables);
    expect([p.cacheRatio, p.cacheCreationRatio]).toEqual([0.1, 1.25]);
    const q = usageQuota(p, u(1000, 100, { cachedTokens: 600, cacheWriteTokens: 300 }));
    expect(q).toBe(Math.round((100 + 600 * 0.1 + 300 * 1.25 + 100 * 5) * 1.5));
    // Newer Claude names share the cache prices; other vendors' writes cost the input price.
    expect(priceFor('claude-sonnet-4-20250514', 'default', tables).cacheCreationRatio).toBe(1.25);
    expect(priceFor('gpt-4o', 'default', tables).cacheCreationRatio).toBe(1);
  });

  it('bills audio tokens at the audio ratios', () => {
    // gpt-4o-audio-preview: ratio 1.25, cr 4, audio 40, audio completion 2.
    const q = usageQuota(priceFor('gpt-4o-audio-preview', 'default', tables), u(110, 30, { audioInputTokens: 100, audioOutputTokens: 20 }));
    expect(q).toBe(Math.round((10 + Math.round(10 * 4) + Math.round(100 * 40 + 20 * 40 * 2)) * 1.25));
  });

  it('uses the fixed per-call price when ModelPrice has the model', () => {
    const p = priceFor('dall-e-3', 'vip', tables);
    expect(p.modelPrice).toBe(0.04);
    expect(usageQuota(p, u(100, 100))).toBe(10_000);
    expect(perCallQuota(priceFor('gpt-4-gizmo-g-1', 'default', tables))).toBe(50_000);
  });
});

describe('imageQuota', () => {
  it.each([
    ['dall-e-3', { size: '1024x1024', quality: 'standard', n: 1 }, 20_000],
    ['dall-e-3', { size: '1024x1024', quality: 'hd', n: 1 }, 40_000],
    ['dall-e-3', { size: '1792x1024', quality: 'hd', n: 1 }, 60_000],
    ['dall-e-2', { size: '256x256', quality: 'standard', n: 2 }, Math.round(0.0025 * 8 * 0.4 * 2 * 500_000)],
    ['dall-e-2', { size: '512x512', quality: 'standard', n: 1 }, Math.round(0.0025 * 8 * 0.45 * 500_000)],
  ] as const)('%s %o → %d', (model, req, expected) => {
    expect(imageQuota(priceFor(model, 'default', tables), req)).toBe(expected);
  });
});

describe('estimateQuota', () => {
  it('reserves prompt + max_tokens, or prompt + PreConsumedQuota tokens', () => {
    const p = priceFor('gpt-4', 'default', tables);
    expect(estimateQuota(p, 10, 100, 500)).toBe((10 + 200) * 15);
    expect(estimateQuota(p, 10, undefined, 500)).toBe((10 + 1000) * 15);
  });
});
