import { describe, expect, it } from 'vitest';
import { dollarsToQuota, formatNumber, formatQuota, formatQuotaIn, quotaDisplayFromStatus, quotaLogText, quotaToDollars } from './quota.js';

describe('formatNumber', () => {
  it('keeps small numbers as they are', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(9999)).toBe('9999');
  });
  it('abbreviates at 1e4, 1e6 and 1e9', () => {
    expect(formatNumber(10000)).toBe('10.0k');
    expect(formatNumber(123456)).toBe('123.5k');
    expect(formatNumber(1_000_000)).toBe('1.0M');
    expect(formatNumber(2_500_000_000)).toBe('2.5B');
  });
  it('abbreviates negative amounts by magnitude', () => {
    expect(formatNumber(-20000)).toBe('-20.0k');
  });
});

describe('formatQuota (the console)', () => {
  const dollars = { quotaPerUnit: 500000, displayInCurrency: true };
  const units = { quotaPerUnit: 500000, displayInCurrency: false };
  it('shows dollars via quota_per_unit', () => {
    expect(formatQuota(500000, dollars)).toBe('$1.00');
    expect(formatQuota(250000, dollars)).toBe('$0.50');
    expect(formatQuota(1, dollars, 6)).toBe('$0.000002');
    // Tiny but real amounts keep their significant digits instead of reading as free.
    expect(formatQuota(8, dollars, 4)).toBe('$0.000016');
    expect(formatQuota(0, dollars, 4)).toBe('$0.0000');
  });
  it('shows raw units, abbreviated, when currency display is off', () => {
    expect(formatQuota(500000, units)).toBe('500.0k');
    expect(formatQuota(42, units)).toBe('42');
  });
  it('never prints NaN', () => {
    expect(formatQuota(Number.NaN, dollars)).toBe('$0.00');
    expect(formatQuota(500000, { quotaPerUnit: 0, displayInCurrency: true })).toBe('$1.00');
  });
});

describe('formatQuotaIn: quota units, tokens, USD and CNY', () => {
  it.each([
    ['quota', 1_234_567, {}, '1234567'],
    ['tokens', 1_234_567, {}, '1.2M'],
    ['usd', 1_000_000, {}, '$2.00'],
    ['usd', 1_000_000, { digits: 4 }, '$2.0000'],
    ['cny', 500_000, {}, '¥7.30'],
    ['cny', 500_000, { cnyPerUsd: 7 }, '¥7.00'],
    ['cny', 1, { digits: 2 }, '¥0.000015'],
  ] as const)('%s of %d %o → %s', (unit, quota, extra, shown) => {
    expect(formatQuotaIn(unit, quota, { quotaPerUnit: 500000, ...extra })).toBe(shown);
  });
});

describe("quotaLogText (the server's log and message texts)", () => {
  it('keeps the reference wording', () => {
    expect(quotaLogText(1000, { quotaPerUnit: 500000, displayInCurrency: true })).toBe('＄0.002000 额度');
    expect(quotaLogText(500000, { quotaPerUnit: 500000, displayInCurrency: true })).toBe('＄1.000000 额度');
    expect(quotaLogText(1000, { quotaPerUnit: 500000, displayInCurrency: false })).toBe('1000 点额度');
  });
});

describe('conversions', () => {
  it('round-trips dollars and units', () => {
    expect(quotaToDollars(1_000_000, 500000)).toBe(2);
    expect(dollarsToQuota(2, 500000)).toBe(1_000_000);
    expect(dollarsToQuota(0.1234567, 500000)).toBe(61728);
  });
});

describe('quotaDisplayFromStatus', () => {
  it('reads booleans and the reference string form', () => {
    expect(quotaDisplayFromStatus({ quota_per_unit: 1000, display_in_currency: false })).toEqual({ quotaPerUnit: 1000, displayInCurrency: false });
    expect(quotaDisplayFromStatus({ display_in_currency: 'true' }).displayInCurrency).toBe(true);
  });
  it('falls back to $ with 500000 units when status is empty', () => {
    expect(quotaDisplayFromStatus({})).toEqual({ quotaPerUnit: 500000, displayInCurrency: true });
  });
});
