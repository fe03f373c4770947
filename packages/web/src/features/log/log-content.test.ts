import { beforeAll, describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { localizeLogContent, withExactRatios } from './log-content';

describe('localizeLogContent', () => {
  beforeAll(() => i18n.loadLanguages(['en', 'zh']));
  const en = (text: string) => localizeLogContent(text, i18n.getFixedT('en', 'log'), 'en');

  it('words the relay, top-up, gift and admin texts in English', () => {
    expect(en('模型倍率 2.50，补全倍率 4.00，分组倍率 1.00')).toBe('Model ratio 2.50, completion ratio 4.00, group ratio 1.00');
    expect(en('模型价格 0.04，分组倍率 1.00')).toBe('Model price 0.04, group ratio 1.00');
    expect(en('模型倍率 1.00，补全倍率 1.00，分组倍率 1.00（可能是上游超时）')).toBe(
      'Model ratio 1.00, completion ratio 1.00, group ratio 1.00 (the upstream may have timed out)',
    );
    expect(en('通过兑换码充值 ＄1.000000 额度，兑换码名称：gift')).toBe('Redeemed $1.000000 of quota with code "gift"');
    expect(en('新用户注册赠送 500 点额度')).toBe('New user gift: 500 quota points');
    expect(en('管理员 root 为用户增加额度 ＄1.000000 额度，从 ＄0.000000 额度修改为 ＄1.000000 额度')).toBe(
      'Admin root increased the quota by $1.000000 of quota, from $0.000000 of quota to $1.000000 of quota',
    );
  });

  it('keeps the stored text in Chinese and for unknown shapes', () => {
    const zh = i18n.getFixedT('zh', 'log');
    expect(localizeLogContent('模型价格 0.04，分组倍率 1.00', zh, 'zh')).toBe('模型价格 0.04，分组倍率 1.00');
    expect(en('something else')).toBe('something else');
  });
});

describe('withExactRatios', () => {
  it('shows the exact ratios of an old row whose text rounded them (0.07 for 0.075)', () => {
    const other = { model_ratio: 0.075, completion_ratio: 0.1 + 0.2, group_ratio: 1, model_price: -1 };
    expect(withExactRatios('模型倍率 0.07，补全倍率 0.30，分组倍率 1.00', other)).toBe('模型倍率 0.075，补全倍率 0.30，分组倍率 1.00');
    expect(withExactRatios('模型价格 0.01，分组倍率 1.00（可能是上游超时）', { model_price: 0.0125, group_ratio: 1 })).toBe('模型价格 0.0125，分组倍率 1.00（可能是上游超时）');
  });

  it('keeps the text when other is missing or disagrees, and other texts as they are', () => {
    expect(withExactRatios('模型倍率 0.07，补全倍率 1.00，分组倍率 1.00', {})).toBe('模型倍率 0.07，补全倍率 1.00，分组倍率 1.00');
    expect(withExactRatios('模型倍率 0.07，补全倍率 1.00，分组倍率 1.00', { model_ratio: 5 })).toBe('模型倍率 0.07，补全倍率 1.00，分组倍率 1.00');
    expect(withExactRatios('新用户注册赠送 500 点额度', { model_ratio: 1 })).toBe('新用户注册赠送 500 点额度');
  });
});
