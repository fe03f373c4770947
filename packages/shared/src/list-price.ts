/**
 * Prices as the pricing page and the ratio editors show them (spec §9): per 1M tokens
 * = model ratio × 2 × group ratio (output × completion ratio), or a fixed price × group ratio per
 * call; and whether a model is priced at all (the relay refuses one that is not).
 */
import type { PricingTables } from './pricing.js';

/** USD per 1M tokens at model ratio 1 (ratio 1 = $0.002 per 1K tokens). */
const USD_PER_MILLION_AT_RATIO_1 = 2;

/** What one model costs in one group, in US dollars. */
export type ListPrice = { kind: 'call'; perCall: number } | { kind: 'tokens'; input: number; output: number };

/** A `GET /api/pricing` entry's price for a group ratio. */
export function listPrice(m: { quota_type: number; model_ratio: number; model_price: number; completion_ratio: number }, groupRatio: number): ListPrice {
  if (m.quota_type === 1) return { kind: 'call', perCall: m.model_price * groupRatio };
  const input = m.model_ratio * USD_PER_MILLION_AT_RATIO_1 * groupRatio;
  return { kind: 'tokens', input, output: input * m.completion_ratio };
}

/** `$0.15`, `$0.0375`: at most 4 decimals, trailing zeros dropped. */
export function formatUsd(value: number): string {
  return `$${Number(value.toFixed(4)).toString()}`;
}

/** Names the tables price through a wildcard entry (pricing.ts priceKey). */
function tableKey(model: string): string {
  if (model.startsWith('gpt-4-gizmo')) return 'gpt-4-gizmo-*';
  if (model.startsWith('gpt-4o-gizmo')) return 'gpt-4o-gizmo-*';
  return model;
}

/** True when the model has a fixed price or a model ratio (wildcard entries included). */
export function hasPrice(model: string, t: Pick<PricingTables, 'modelPrice' | 'modelRatio'>): boolean {
  const key = tableKey(model);
  return typeof t.modelPrice[key] === 'number' || typeof t.modelRatio[key] === 'number';
}
