import { hasPrice, type OptionKey } from '@modelgate/shared';
import { readOption, type OptionMap } from '../../../../lib/options';

/** The pricing options the ratio editors write (console-api.md §5: pretty-printed JSON strings). */
export const RATIO_KEYS = ['ModelPrice', 'ModelRatio', 'CompletionRatio', 'CacheRatio', 'CreateCacheRatio'] as const satisfies readonly OptionKey[];
export type RatioKey = (typeof RATIO_KEYS)[number];
export type RatioTables = Record<RatioKey, Record<string, number>>;

/** A row of the visual editor (spec §3 "Visual pricing row"): empty strings are unset values. */
export interface RatioRow {
  name: string;
  price: string;
  ratio: string;
  completionRatio: string;
  cacheRatio: string;
  createCacheRatio: string;
}

function numbers(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

export function tablesFromOptions(options: OptionMap): RatioTables {
  return Object.fromEntries(RATIO_KEYS.map((key) => [key, numbers(readOption(options, key))])) as RatioTables;
}

export const pretty = (table: Record<string, number>) => JSON.stringify(table, null, 2);

/** Every table as the pretty-printed text the editors save. */
export const prettyTables = (t: RatioTables) => Object.fromEntries(RATIO_KEYS.map((key) => [key, pretty(t[key])])) as Record<RatioKey, string>;

/** One row per model named in any table, sorted by name. */
export function rowsFromTables(t: RatioTables): RatioRow[] {
  const names = [...new Set(RATIO_KEYS.flatMap((key) => Object.keys(t[key])))].sort((a, b) => a.localeCompare(b));
  const cell = (v: number | undefined) => (v === undefined ? '' : String(v));
  return names.map((name) => ({
    name,
    price: cell(t.ModelPrice[name]),
    ratio: cell(t.ModelRatio[name]),
    completionRatio: cell(t.CompletionRatio[name]),
    cacheRatio: cell(t.CacheRatio[name]),
    createCacheRatio: cell(t.CreateCacheRatio[name]),
  }));
}

/** The tables a set of rows stands for: a fixed price replaces the ratios of its model (spec §4). */
export function tablesFromRows(rows: readonly RatioRow[]): RatioTables {
  const t: RatioTables = { ModelPrice: {}, ModelRatio: {}, CompletionRatio: {}, CacheRatio: {}, CreateCacheRatio: {} };
  for (const r of rows) {
    if (r.price.trim() !== '') {
      t.ModelPrice[r.name] = Number(r.price);
      continue;
    }
    if (r.ratio.trim() !== '') t.ModelRatio[r.name] = Number(r.ratio);
    if (r.completionRatio.trim() !== '') t.CompletionRatio[r.name] = Number(r.completionRatio);
    if (r.cacheRatio.trim() !== '') t.CacheRatio[r.name] = Number(r.cacheRatio);
    if (r.createCacheRatio.trim() !== '') t.CreateCacheRatio[r.name] = Number(r.createCacheRatio);
  }
  return t;
}

/** A non-negative decimal, as the visual editor accepts (empty is "unset"). */
export function isNumberText(text: string): boolean {
  const s = text.trim();
  return s === '' || (/^\d*\.?\d+(e[+-]?\d+)?$/i.test(s) && Number.isFinite(Number(s)));
}

/** Models some enabled channel serves that the relay would refuse: no fixed price and no ratio (same lookup). */
export function unlistedModels(enabled: readonly string[], t: RatioTables): string[] {
  return enabled.filter((m) => !hasPrice(m, { modelPrice: t.ModelPrice, modelRatio: t.ModelRatio }));
}
