import { describe, expect, it } from 'vitest';
import { abbreviateNumber, formatQuota } from './quota.js';

describe('abbreviateNumber', () => {
  it.each([
    [9999, '9999'],
    [10000, '10k'],
    [123456, '123.46k'],
    [1_000_000, '1M'],
    [2_500_000_000, '2.5B'],
  ])('%d → %s', (n, s) => expect(abbreviateNumber(n)).toBe(s));
});

describe('formatQuota', () => {
  it('shows dollars when currency display is on', () => {
    expect(formatQuota(500000, { quotaPerUnit: 500000, displayInCurrency: true })).toBe('$1.00');
    expect(formatQuota(1, { quotaPerUnit: 500000, displayInCurrency: true })).toBe('$0.0000020');
  });
  it('shows raw abbreviated units otherwise', () => {
    expect(formatQuota(1_500_000, { quotaPerUnit: 500000, displayInCurrency: false })).toBe('1.5M');
  });
});
