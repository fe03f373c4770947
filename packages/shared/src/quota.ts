/** Pure money helpers shared by server and web (spec §9). */

/** Abbreviates large numbers: >=1e4 k, >=1e6 M, >=1e9 B. */
export function abbreviateNumber(value: number): string {
  const abs = Math.abs(value);
  const trim = (n: number) => String(Number(n.toFixed(2)));
  if (abs >= 1e9) return `${trim(value / 1e9)}B`;
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e4) return `${trim(value / 1e3)}k`;
  return String(value);
}

/** Quota units → dollars, rounded to cents for display (but never hides a tiny non-zero amount). */
export function quotaToDollars(quota: number, quotaPerUnit: number): number {
  return quotaPerUnit > 0 ? quota / quotaPerUnit : 0;
}

export function formatQuota(quota: number, opts: { quotaPerUnit: number; displayInCurrency: boolean; digits?: number }): string {
  if (!opts.displayInCurrency) return abbreviateNumber(quota);
  const dollars = quotaToDollars(quota, opts.quotaPerUnit);
  const digits = opts.digits ?? 2;
  const shown = dollars.toFixed(digits);
  if (Number(shown) === 0 && dollars !== 0) return `$${dollars.toPrecision(2)}`;
  return `$${shown}`;
}
