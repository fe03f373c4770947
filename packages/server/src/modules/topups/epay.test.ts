import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { epaySign, epayType, epayVerify, notifyFields } from './epay.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

describe('Epay signature', () => {
  it('signs the sorted non-empty fields without sign and sign_type, key appended', () => {
    const fields = { out_trade_no: 'T1', money: '7.30', pid: '1001', name: '', sign: 'old', sign_type: 'MD5', type: 'alipay' };
    expect(epaySign(fields, 'KEY')).toBe(md5('money=7.30&out_trade_no=T1&pid=1001&type=alipayKEY'));
  });

  it('verifies a signature in either case and refuses a changed field, a wrong key or a malformed sign', () => {
    const fields: Record<string, string> = { pid: '1', money: '1.00', trade_status: 'TRADE_SUCCESS' };
    const sign = epaySign(fields, 'k');
    expect(epayVerify({ ...fields, sign }, 'k')).toBe(true);
    expect(epayVerify({ ...fields, sign: sign.toUpperCase() }, 'k')).toBe(true);
    expect(epayVerify({ ...fields, money: '0.01', sign }, 'k')).toBe(false);
    expect(epayVerify({ ...fields, sign }, 'other')).toBe(false);
    expect(epayVerify({ ...fields, sign: 'nope' }, 'k')).toBe(false);
    expect(epayVerify(fields, 'k')).toBe(false);
    expect(epayVerify({ ...fields, sign: epaySign(fields, '') }, '')).toBe(false);
  });

  it('maps the console’s payment methods and rejects others', () => {
    expect([epayType('zfb'), epayType('wx'), epayType('alipay'), epayType('wxpay'), epayType('qq'), epayType(undefined)]).toEqual(['alipay', 'wxpay', 'alipay', 'wxpay', null, null]);
  });

  it('takes notification fields only when each is one string', () => {
    expect(notifyFields({ a: '1', b: '' })).toEqual({ a: '1', b: '' });
    expect(notifyFields({ a: ['1', '2'] })).toBeNull();
    expect(notifyFields({ a: { x: 1 } })).toBeNull();
  });
});
