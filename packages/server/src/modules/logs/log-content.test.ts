import { parseLogContent, quotaLogText, ratioText, splitLogAmounts } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { describePrice, type Price } from '../../relay/billing/pricing.js';

/** The console words log rows from the shared patterns: the texts the relay writes must match them. */
describe('log content texts the console can word', () => {
  const base = { modelRatio: 2.5, completionRatio: 4, groupRatio: 1.5, modelPrice: -1 } as Price;

  it('parses the relay settle text in ratio and price mode, with the timeout mark', () => {
    expect(parseLogContent(describePrice(base, 10))).toEqual({ key: 'ratio', values: { model: '2.50', completion: '4.00', group: '1.50' }, timeout: false });
    expect(parseLogContent(describePrice(base, 0))).toMatchObject({ key: 'ratio', timeout: true });
    expect(parseLogContent(describePrice({ ...base, modelPrice: 0.04 }, 10))).toEqual({ key: 'price', values: { price: '0.04', group: '1.50' }, timeout: false });
  });

  it('writes ratios exactly: every real digit, no float noise, two decimals at least', () => {
    expect(describePrice({ ...base, modelRatio: 0.075, completionRatio: 0.1 + 0.2, groupRatio: 1 }, 10)).toBe('模型倍率 0.075，补全倍率 0.30，分组倍率 1.00');
    expect(describePrice({ ...base, modelPrice: 0.0125 }, 10)).toBe('模型价格 0.0125，分组倍率 1.50');
    expect(ratioText(1 / 3)).toBe('0.333333333333');
  });

  it('finds the amounts quotaLogText writes', () => {
    const usd = quotaLogText(500000, { quotaPerUnit: 500000, displayInCurrency: true });
    const points = quotaLogText(42, { quotaPerUnit: 500000, displayInCurrency: false });
    expect(splitLogAmounts(`from ${usd} to ${points}`)).toEqual(['from ', { unit: 'usd', value: '1.000000' }, ' to ', { unit: 'points', value: '42' }]);
  });
});
