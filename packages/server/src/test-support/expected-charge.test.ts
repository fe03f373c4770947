import { describe, expect, it } from 'vitest';
import { expectedCharge, expectedImageCharge, expectedPerCallCharge, expectedPrice } from './expected-charge.js';

/**
 * The helper's answers worked out by hand from reference §5, so a change in the shared formula
 * shows here once instead of silently moving every API test's expectation with it.
 */
describe('expectedCharge', () => {
  it('prices a default model from the shipped tables: gpt-4 at ratio 15, completion 2', () => {
    expect(expectedPrice({ model: 'gpt-4' })).toMatchObject({ modelRatio: 15, completionRatio: 2, groupRatio: 1, modelPrice: -1, quotaPerUnit: 500_000 });
    // (3 + 5 × 2) × 15
    expect(expectedCharge({ model: 'gpt-4' }, { prompt: 3, completion: 5 })).toBe(195);
  });

  it('rounds the completion term on its own before the sum, as the relay does', () => {
    // 1 + round(1 × 1.5) = 3, × 2 = 6; one rounding over the whole sum would give round(2.5 × 2) = 5.
    expect(expectedCharge({ modelRatio: 2, completionRatio: 1.5 }, { prompt: 1, completion: 1 })).toBe(6);
  });

  it('bills cache reads and writes at their ratios (Claude: 0.1 and 1.25)', () => {
    // 5 prompt tokens = 3 uncached + 1 read + 1 written: (3 + 0.1 + 1.25 + 5 × 5) × 1.5 = 44.025
    expect(expectedCharge({ model: 'claude-3-5-sonnet-20241022' }, { prompt: 5, cached: 1, cacheWrite: 1, completion: 5 })).toBe(44);
  });

  it('charges at least 1 for a usage whose exact price rounds to 0', () => {
    expect(expectedCharge({ modelRatio: 0.01 }, { prompt: 4 })).toBe(1);
    expect(expectedCharge({ modelRatio: 0 }, { prompt: 4 })).toBe(0);
  });

  it('applies the group ratio from the tables the test set, or an explicit one', () => {
    const tables = { groupRatio: { default: 1, vip: 2 } };
    expect(expectedCharge({ model: 'gpt-4', group: 'vip', tables }, { prompt: 3, completion: 5 })).toBe(390);
    expect(expectedCharge({ model: 'gpt-4', groupRatio: 0.5 }, { prompt: 3, completion: 5 })).toBe(98);
  });

  it('charges a fixed price per call whatever the tokens, and images by size, quality and count', () => {
    expect(expectedCharge({ modelPrice: 0.02 }, { prompt: 1000, completion: 1000 })).toBe(10_000);
    expect(expectedPerCallCharge({ modelPrice: 0.03, groupRatio: 2 }, 2)).toBe(60_000);
    expect(expectedImageCharge({ model: 'dall-e-3' }, { size: '1024x1024' })).toBe(20_000);
    // dall-e-2 at ModelRatio 8: 0.0025 × 8 × 0.45 (512²) × 2 images × 500 000
    expect(expectedImageCharge({ model: 'dall-e-2' }, { size: '512x512', n: 2 })).toBe(9_000);
  });

  it('bills an unpriced model at the fallback ratio 30', () => {
    expect(expectedPrice({ model: 'no-such-model-x' })).toMatchObject({ modelRatio: 30, ratioFound: false });
    expect(expectedCharge({ model: 'no-such-model-x' }, { prompt: 2, completion: 3 })).toBe(150);
  });
});
