/**
 * Showing a quota (spec §9): 500 000 units are one dollar by default (QuotaPerUnit). One family of
 * functions for every place a quota is shown: the console's columns and statistics and the texts
 * the server writes into logs and messages.
 */
import { DEFAULT_QUOTA_PER_UNIT } from './constants.js';

/**
 * `quota`: the exact integer; `tokens`: the integer abbreviated (one unit is one token at ratio 1);
 * `usd`: dollars; `cny`: dollars at the top-up price (the Price option, yuan per dollar).
 */
export type QuotaUnit = 'quota' | 'tokens' | 'usd' | 'cny';

/** How a site shows quotas: from `/api/status` in the console, from the options on the server. */
export interface QuotaDisplay {
  /** Quota units per dollar (QuotaPerUnit). */
  quotaPerUnit: number;
  /** DisplayInCurrencyEnabled: dollars when true, abbreviated units otherwise. */
  displayInCurrency: boolean;
}

/** The Price option's default: yuan per dollar of quota. */
export const DEFAULT_CNY_PER_USD = 7.3;

export const DEFAULT_QUOTA_DISPLAY: QuotaDisplay = { quotaPerUnit: DEFAULT_QUOTA_PER_UNIT, displayInCurrency: true };

/** A missing, zero or negative rate falls back to the default instead of dividing by it. */
const rate = (quotaPerUnit: number) => (quotaPerUnit > 0 ? quotaPerUnit : DEFAULT_QUOTA_PER_UNIT);

export function quotaToDollars(quota: number, quotaPerUnit: number): number {
  return quota / rate(quotaPerUnit);
}

export function dollarsToQuota(dollars: number, quotaPerUnit: number): number {
  return Math.round(dollars * rate(quotaPerUnit));
}

/** Spec §9: ≥1e4 → k, ≥1e6 → M, ≥1e9 → B, one decimal, like the reference's renderNumber. */
export function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${(value / 1e9).toFixed(1)}B`;
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
}

/** A money amount with `digits` decimals; a real but tiny amount keeps two significant digits rather than reading as free. */
function money(symbol: string, amount: number, digits: number): string {
  const shown = amount.toFixed(digits);
  if (Number(shown) === 0 && amount !== 0) return `${symbol}${amount.toPrecision(2)}`;
  return `${symbol}${shown}`;
}

export interface QuotaFormat {
  quotaPerUnit: number;
  /** Decimals of a money amount (2 unless said). */
  digits?: number;
  /** Yuan per dollar for `cny` (the Price option). */
  cnyPerUsd?: number;
}

/** A quota in the given unit; NaN and infinities show as 0. */
export function formatQuotaIn(unit: QuotaUnit, quota: number, f: QuotaFormat): string {
  const value = Number.isFinite(quota) ? quota : 0;
  const digits = f.digits ?? 2;
  switch (unit) {
    case 'quota':
      return String(value);
    case 'tokens':
      return formatNumber(value);
    case 'usd':
      return money('$', quotaToDollars(value, f.quotaPerUnit), digits);
    case 'cny':
      return money('¥', quotaToDollars(value, f.quotaPerUnit) * (f.cnyPerUsd ?? DEFAULT_CNY_PER_USD), digits);
  }
}

/** The unit a site's display settings call for. */
export function displayUnit(display: QuotaDisplay): QuotaUnit {
  return display.displayInCurrency ? 'usd' : 'tokens';
}

/** A quota as the console shows it: dollars, or abbreviated units when currency display is off. */
export function formatQuota(quota: number, display: QuotaDisplay, digits = 2): string {
  return formatQuotaIn(displayUnit(display), quota, { quotaPerUnit: display.quotaPerUnit, digits });
}

/**
 * A quota in the server's log and message texts (reference wording): `＄0.002000 额度` with
 * currency display on, else `1000 点额度`.
 */
export function quotaLogText(quota: number, display: QuotaDisplay): string {
  if (!display.displayInCurrency) return `${quota} 点额度`;
  return `＄${quotaToDollars(quota, display.quotaPerUnit).toFixed(6)} 额度`;
}

/** The display settings of a `/api/status` object; the reference stored display_in_currency as a string. */
export function quotaDisplayFromStatus(status: { quota_per_unit?: unknown; display_in_currency?: unknown }): QuotaDisplay {
  const perUnit = Number(status.quota_per_unit);
  return {
    quotaPerUnit: perUnit > 0 ? perUnit : DEFAULT_QUOTA_PER_UNIT,
    displayInCurrency:
      status.display_in_currency === undefined
        ? DEFAULT_QUOTA_DISPLAY.displayInCurrency
        : status.display_in_currency === true || status.display_in_currency === 'true',
  };
}
