import { hasPrice, type OptionKey } from '@modelgate/shared';
import { readOption, type OptionMap } from '../../../../lib/options';

/** The three pricing options the ratio editors write (console-api.md §5: pretty-printed JSON strings). */
export const RATIO_KEYS = ['ModelPrice', 'ModelRatio', 'CompletionRatio'] as const satisfies readonly OptionKey[];
export type RatioKey = (typeof RATIO_KEYS)[number];
export type RatioTables = Record<RatioKey, Record<string, number>>;

/** A row of the visual editor (spec §3 "Visual pricing row"): empty strings are unset values. */
export interface RatioRow {
  name: string;
  price: string;
  ratio: string;
  completionRatio: string;
}

function numbers(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

export function tablesFromOptions(options: OptionMap): RatioTables {
  return {
    ModelPrice: numbers(readOption(options, 'ModelPrice')),
    ModelRatio: numbers(readOption(options, 'ModelRatio')),
    CompletionRatio: numbers(readOption(options, 'CompletionRatio')),
  };
}

export const pretty = (table: Record<string, number>) => JSON.stringify(table, null, 2);

/** One row per model named in any table, sorted by name. */
export function rowsFromTables(t: RatioTables): RatioRow[] {
  const names = [...new Set([...Object.keys(t.ModelPrice), ...Object.keys(t.ModelRatio), ...Object.keys(t.CompletionRatio)])].sort((a, b) => a.localeCompare(b));
  const cell = (v: number | undefined) => (v === undefined ? '' : String(v));
  return names.map((name) => ({ name, price: cell(t.ModelPrice[name]), ratio: cell(t.ModelRatio[name]), completionRatio: cell(t.CompletionRatio[name]) }));
}

/** The tables a set of rows stands for: a fixed price replaces the ratios of its model (spec §4). */
export function tablesFromRows(rows: readonly RatioRow[]): RatioTables {
  const t: RatioTables = { ModelPrice: {}, ModelRatio: {}, CompletionRatio: {} };
  for (const r of rows) {
    if (r.price.trim() !== '') {
      t.ModelPrice[r.name] = Number(r.price);
      continue;
    }
    if (r.ratio.trim() !== '') t.ModelRatio[r.name] = Number(r.ratio);
    if (r.completionRatio.trim() !== '') t.CompletionRatio[r.name] = Number(r.completionRatio);
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
