import { describe, expect, it } from 'vitest';
import { formatUsd, hasPrice, listPrice } from './list-price.js';

describe('list prices', () => {
  const entry = (over: Partial<{ quota_type: number; model_ratio: number; model_price: number; completion_ratio: number }>) => ({ quota_type: 0, model_ratio: 1, model_price: 0, completion_ratio: 1, ...over });

  it('prices tokens per 1M as ratio × 2 × group ratio, output × completion ratio', () => {
    expect(listPrice(entry({ model_ratio: 0.075, completion_ratio: 4 }), 1)).toEqual({ kind: 'tokens', input: 0.15, output: 0.6 });
    expect(listPrice(entry({ model_ratio: 1.25, completion_ratio: 4 }), 0.5)).toEqual({ kind: 'tokens', input: 1.25, output: 5 });
  });

  it('prices a fixed-price model per call × group ratio', () => {
    expect(listPrice(entry({ quota_type: 1, model_price: 0.04 }), 2)).toEqual({ kind: 'call', perCall: 0.08 });
  });

  it('formats dollars with at most four decimals', () => {
    expect([0.15, 0.0375, 0.123456, 2].map(formatUsd)).toEqual(['$0.15', '$0.0375', '$0.1235', '$2']);
  });

  it('knows a priced model, wildcard entries included', () => {
    const t = { modelPrice: { 'gpt-4-gizmo-*': 0.1, 'dall-e-3': 0.04 }, modelRatio: { 'gpt-4o': 1.25 } };
    expect(['gpt-4o', 'dall-e-3', 'gpt-4-gizmo-abc', 'mystery'].map((m) => hasPrice(m, t))).toEqual([true, true, true, false]);
  });
});
