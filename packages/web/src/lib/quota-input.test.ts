import { QUOTA_MAX } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { amountRule, amountTotalRule } from './quota-input';

type Validator = (rule: unknown, value: unknown) => Promise<void>;
const check = (rule: ReturnType<typeof amountRule>, value: unknown) => (rule as { validator: Validator }).validator({}, value);

describe('quota inputs (issue 35)', () => {
  it('accept whole numbers from the minimum to the largest exact one, and an empty field', async () => {
    await expect(check(amountRule(0), 0)).resolves.toBeUndefined();
    await expect(check(amountRule(0), QUOTA_MAX)).resolves.toBeUndefined();
    await expect(check(amountRule(0), null)).resolves.toBeUndefined();
  });

  it('refuse a rounded huge number or one below the minimum in words, naming no field', async () => {
    const message = (value: unknown, min = 0) => check(amountRule(min), value).then(() => '', (e: Error) => e.message);
    expect(await message(Number('99999999999999999999'))).toContain(String(QUOTA_MAX));
    expect(await message(Number('9007199254740993'))).toContain(String(QUOTA_MAX));
    expect(await message(0, 1)).toMatch(/\b1\b/);
    const negative = await message(-5);
    expect(negative).not.toBe('');
    expect(negative).not.toMatch(/remain_quota|-9007/);
  });

  it('keep a balance change within 0 and the maximum', async () => {
    const rule = amountTotalRule(() => 100);
    await expect(check(rule, -100)).resolves.toBeUndefined();
    await expect(check(rule, -101)).rejects.toThrow(String(QUOTA_MAX));
    await expect(check(rule, QUOTA_MAX)).rejects.toThrow(String(QUOTA_MAX));
  });
});
