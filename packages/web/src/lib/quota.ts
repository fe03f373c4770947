import { DEFAULT_QUOTA_PER_UNIT } from './storage';

export interface QuotaDisplay {
  /** Quota units per dollar (QuotaPerUnit, 500 000 by default). */
  quotaPerUnit: number;
  /** DisplayInCurrencyEnabled: dollars when true, raw units otherwise. */
  displayInCurrency: boolean;
}

export const DEFAULT_QUOTA_DISPLAY: QuotaDisplay = {
  quotaPerUnit: DEFAULT_QUOTA_PER_UNIT,
  displayInCurrency: true,
};

/** Spec §9: ≥1e4 → k, ≥1e6 → M, ≥1e9 → B, one decimal, like the reference's renderNumber. */
export function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${(value / 1e9).toFixed(1)}B`;
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
}

/** Converts quota units to dollars; a missing or zero rate falls back to the default instead of NaN. */
export function quotaToDollars(quota: number, quotaPerUnit: number): number {
  const rate = quotaPerUnit > 0 ? quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
  return quota / rate;
}

export function dollarsToQuota(dollars: number, quotaPerUnit: number): number {
  const rate = quotaPerUnit > 0 ? quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
  return Math.round(dollars * rate);
}

export function formatQuota(quota: number, display: QuotaDisplay, digits = 2): string {
  const value = Number.isFinite(quota) ? quota : 0;
  if (display.displayInCurrency) {
    const dollars = quotaToDollars(value, display.quotaPerUnit);
    const shown = dollars.toFixed(digits);
    // A real but tiny charge must not read as free: show its first significant digits instead.
    if (Number(shown) === 0 && dollars !== 0) return `$${dollars.toPrecision(2)}`;
    return `$${shown}`;
  }
  return formatNumber(value);
}

export function quotaDisplayFromStatus(status: {
  quota_per_unit?: unknown;
  display_in_currency?: unknown;
}): QuotaDisplay {
  const rate = Number(status.quota_per_unit);
  return {
    quotaPerUnit: rate > 0 ? rate : DEFAULT_QUOTA_PER_UNIT,
    // The reference stored this as a string; accept both shapes.
    displayInCurrency:
      status.display_in_currency === undefined
        ? DEFAULT_QUOTA_DISPLAY.displayInCurrency
        : status.display_in_currency === true || status.display_in_currency === 'true',
  };
}
