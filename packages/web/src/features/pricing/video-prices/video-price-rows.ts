import { isResolutionTier, type VideoPriceTable } from '@modelgate/shared';

/** One price of the video editor: a model at a resolution tier, USD per second (text as typed). */
export interface VideoPriceRow {
  key: string;
  model: string;
  tier: string;
  usd: string;
}

/** One row per model and tier, sorted by model then tier (`*` last). */
export function rowsFromVideoTable(table: VideoPriceTable): VideoPriceRow[] {
  const rows: VideoPriceRow[] = [];
  for (const [model, tiers] of Object.entries(table)) {
    if (!tiers || typeof tiers !== 'object') continue;
    for (const [tier, usd] of Object.entries(tiers)) if (typeof usd === 'number') rows.push({ key: `${model}\u0000${tier}`, model, tier, usd: String(usd) });
  }
  const order = (t: string) => (t === '*' ? Number.MAX_SAFE_INTEGER : Number.parseInt(t, 10));
  return rows.sort((a, b) => a.model.localeCompare(b.model) || order(a.tier) - order(b.tier));
}

/** The table rows stand for: a later row of the same model and tier replaces an earlier one. */
export function videoTableFromRows(rows: readonly VideoPriceRow[]): VideoPriceTable {
  const table: VideoPriceTable = {};
  for (const r of rows) (table[r.model] ??= {})[r.tier] = Number(r.usd);
  return table;
}

/** `720p`, `1080P` or `*` (lower-cased), else undefined. */
export function tierText(text: string): string | undefined {
  const t = text.trim().toLowerCase();
  return isResolutionTier(t) ? t : undefined;
}

/** A non-negative decimal, as the editor accepts. */
export function isAmountText(text: string): boolean {
  const s = text.trim();
  return /^\d*\.?\d+$/.test(s) && Number.isFinite(Number(s));
}
