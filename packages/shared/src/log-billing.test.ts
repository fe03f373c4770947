import { describe, expect, it } from 'vitest';
import { consumeLogOther, explainCharge, parseLogOther, usedChannels } from './log-billing.js';
import { defaultPricingTables, emptyUsage, priceFor, type Usage, usageQuota } from './pricing.js';

const tables = defaultPricingTables({ groupRatio: { default: 1, vip: 0.5 } });

/** What the relay writes for a request, and what the console reads back from the stored row. */
function roundTrip(model: string, group: string, usage: Usage) {
  const price = priceFor(model, group, tables);
  const other = JSON.stringify(consumeLogOther(price, usage, { frt: 120, useChannel: ['3'], shortfall: 0 }));
  const row = { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens };
  return { billed: usageQuota(price, usage), explained: explainCharge(model, row, parseLogOther(other), tables.quotaPerUnit) };
}

describe('explainCharge recomputes the charge with the relay’s formula', () => {
  it.each([
    ['plain chat', 'gpt-4', 'default', { promptTokens: 6, completionTokens: 5 }],
    ['a group discount', 'gpt-4', 'vip', { promptTokens: 7, completionTokens: 3 }],
    ['a fractional completion ratio', 'gpt-3.5-turbo-16k', 'default', { promptTokens: 10, completionTokens: 10 }],
    ['cached prompt tokens', 'gpt-4o', 'default', { promptTokens: 1000, completionTokens: 100, cachedTokens: 400 }],
    ['Claude cache reads and writes', 'claude-3-5-sonnet-20241022', 'default', { promptTokens: 1000, completionTokens: 100, cachedTokens: 600, cacheWriteTokens: 300 }],
    ['audio tokens', 'gpt-4o-audio-preview', 'default', { promptTokens: 110, completionTokens: 30, audioInputTokens: 100, audioOutputTokens: 20 }],
    ['a tiny usage billed at least 1', 'text-embedding-3-small', 'default', { promptTokens: 4, completionTokens: 0 }],
    ['a per-call price', 'dall-e-3', 'vip', { promptTokens: 100, completionTokens: 100 }],
    ['a model missing from ModelRatio', 'my-model', 'default', { promptTokens: 1, completionTokens: 1 }],
  ] as const)('%s', (_name, model, group, counts) => {
    const { billed, explained } = roundTrip(model, group, { ...emptyUsage(), ...counts });
    expect(explained.quota).toBe(billed);
    expect(explained.dollars).toBeCloseTo(billed / 500_000, 12);
  });

  it('differs from the spec’s plain formula where the relay bills cached tokens at their ratio', () => {
    const { explained } = roundTrip('gpt-4o', 'default', { ...emptyUsage(), promptTokens: 1000, completionTokens: 100, cachedTokens: 400 });
    expect(explained.mode).toBe('ratio');
    if (explained.mode !== 'ratio') return;
    // (600 + 400 × 0.5 + 100 × 4) × 1.25, not (1000 + 100 × 4) × 1.25.
    expect(explained.quota).toBe(1500);
    expect(explained.terms).toMatchObject({ textIn: 600, cached: 400, textOut: 100 });
    expect(explained.cacheRatio).toBe(0.5);
  });

  it('explains a per-call price as price × group ratio in quota units', () => {
    const { explained } = roundTrip('dall-e-3', 'vip', { ...emptyUsage(), promptTokens: 1, completionTokens: 1 });
    expect(explained).toEqual({ mode: 'price', price: 0.04, groupRatio: 0.5, quota: 10_000, dollars: 0.02 });
  });
});

describe('consumeLogOther', () => {
  it('writes the spec §3 fields, the audio split and the missing-ratio flag', () => {
    const price = priceFor('unknown-model', 'default', tables);
    const other = consumeLogOther(price, { ...emptyUsage(), promptTokens: 10, completionTokens: 4, audioInputTokens: 6, reasoningTokens: 2 }, { frt: 5, useChannel: ['1', '2'], shortfall: 7 });
    expect(other).toMatchObject({ model_ratio: 30, group_ratio: 1, completion_ratio: 1, model_price: -1, frt: 5, reasoning_tokens: 2, audio: true, text_input: 4, audio_input: 6, shortfall: 7, ratio_missing: true });
    expect(usedChannels(other)).toEqual(['1', '2']);
    expect(other).not.toHaveProperty('cache_tokens');
  });
});

describe('parseLogOther', () => {
  it('never throws on empty or broken JSON (gotcha G4)', () => {
    expect(parseLogOther('')).toEqual({});
    expect(parseLogOther(null)).toEqual({});
    expect(parseLogOther('{oops')).toEqual({});
    expect(parseLogOther('[1]')).toEqual({});
    expect(parseLogOther('{"frt":12}')).toEqual({ frt: 12 });
  });
  it('explains a row whose other is junk without NaN', () => {
    const e = explainCharge('gpt-4', { prompt_tokens: 3, completion_tokens: 2 }, parseLogOther('junk'), 500_000);
    expect(e).toMatchObject({ mode: 'ratio', quota: 0, dollars: 0 });
  });
});
