import {
  DEFAULT_CACHE_RATIO,
  DEFAULT_COMPLETION_RATIO,
  DEFAULT_CREATE_CACHE_RATIO,
  DEFAULT_MODEL_PRICE,
  DEFAULT_MODEL_RATIO,
  defaultPricingTables,
  priceFor,
} from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { allBuiltinModels, registeredAdapters } from './registry.js';

/**
 * Catalogue models a fresh install may leave unpriced, each with the reason. Nothing is exempt
 * today: a model added to an adapter's `models` list needs a ModelRatio or ModelPrice default.
 */
const UNPRICED_EXEMPT: Readonly<Record<string, string>> = {};

const tables = defaultPricingTables();

const priced = (m: string) => Object.hasOwn(DEFAULT_MODEL_RATIO, m) || Object.hasOwn(DEFAULT_MODEL_PRICE, m);

describe('default prices', () => {
  it('price every model an adapter ships, so a fresh install refuses none of them as unpriced', () => {
    const unpriced = registeredAdapters().flatMap((a) => a.models.filter((m) => !priced(m) && !Object.hasOwn(UNPRICED_EXEMPT, m)).map((m) => `${a.slug}: ${m}`));
    expect(unpriced).toEqual([]);
    // An exemption names a catalogue model that really has no price.
    for (const m of Object.keys(UNPRICED_EXEMPT)) expect(allBuiltinModels().includes(m) && !priced(m), m).toBe(true);
  });

  it('hold only finite, non-negative numbers', () => {
    for (const table of [DEFAULT_MODEL_RATIO, DEFAULT_MODEL_PRICE, DEFAULT_COMPLETION_RATIO, DEFAULT_CACHE_RATIO, DEFAULT_CREATE_CACHE_RATIO]) {
      for (const [model, v] of Object.entries(table)) expect(Number.isFinite(v) && v >= 0, model).toBe(true);
    }
  });

  it("price Claude Code's and Codex's default models with their output and cache ratios", () => {
    const shipped = new Set(allBuiltinModels());
    // The issue named the first four; Claude Code 2.1.332 and Codex 0.171 actually default to the last two (agents tier captures).
    const got = ['claude-opus-4-8', 'claude-sonnet-4-6', 'claude-haiku-4-5', 'gpt-5.5', 'claude-opus-5-5', 'gpt-6.2-sol'].map((m) => {
      const p = priceFor(m, 'default', tables);
      return { m, shipped: shipped.has(m), ratio: p.modelRatio, completion: p.completionRatio, read: p.cacheRatio, write: p.cacheCreationRatio };
    });
    expect(got).toEqual([
      { m: 'claude-opus-4-8', shipped: true, ratio: 2.5, completion: 5, read: 0.1, write: 1.25 },
      { m: 'claude-sonnet-4-6', shipped: true, ratio: 1.5, completion: 5, read: 0.1, write: 1.25 },
      { m: 'claude-haiku-4-5', shipped: true, ratio: 0.5, completion: 5, read: 0.1, write: 1.25 },
      { m: 'gpt-5.5', shipped: true, ratio: 2.5, completion: 6, read: 0.1, write: 1 },
      { m: 'claude-opus-5-5', shipped: true, ratio: 2, completion: 5, read: 0.05, write: 1.25 },
      { m: 'gpt-6.2-sol', shipped: true, ratio: 2.5, completion: 6, read: 0.1, write: 1 },
    ]);
  });

  it('bill every shipped Claude model cache reads at 0.05–0.1 and 5-minute writes at 1.25', () => {
    const claude = allBuiltinModels().filter((m) => /^claude-(3-[57]|(opus|sonnet|haiku)-\d)/.test(m));
    expect(claude.length).toBeGreaterThan(10);
    for (const m of claude) {
      const p = priceFor(m, 'default', tables);
      expect([p.cacheRatio === 0.1 || p.cacheRatio === 0.05, p.cacheCreationRatio], m).toEqual([true, 1.25]);
    }
  });
});
