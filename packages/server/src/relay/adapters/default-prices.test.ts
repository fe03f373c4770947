import { DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { allBuiltinModels } from './registry.js';

describe('default prices', () => {
  it('price every model an adapter ships, so a fresh install refuses none of them as unpriced', () => {
    const unpriced = allBuiltinModels().filter((m) => !Object.hasOwn(DEFAULT_MODEL_RATIO, m) && !Object.hasOwn(DEFAULT_MODEL_PRICE, m));
    expect(unpriced).toEqual([]);
  });

  it('hold only finite, non-negative numbers', () => {
    for (const table of [DEFAULT_MODEL_RATIO, DEFAULT_MODEL_PRICE]) {
      for (const [model, v] of Object.entries(table)) expect(Number.isFinite(v) && v >= 0, model).toBe(true);
    }
  });
});
