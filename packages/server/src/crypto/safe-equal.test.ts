import { describe, expect, it } from 'vitest';
import { epaySign, epayVerify } from '../modules/topups/epay.js';
import { safeEqual } from './safe-equal.js';

describe('safeEqual (every key, signature and state check)', () => {
  it('matches equal strings and buffers, and nothing else', () => {
    expect(safeEqual('sig-123', 'sig-123')).toBe(true);
    expect(safeEqual(Buffer.from('abc'), Buffer.from('abc'))).toBe(true);
    expect(safeEqual('sig-123', 'sig-124')).toBe(false);
    // Different lengths compare without throwing (timingSafeEqual alone would) and without matching.
    expect(safeEqual('sig', 'sig-123')).toBe(false);
    expect(safeEqual('sig-123-and-more', 'sig-123')).toBe(false);
    expect(safeEqual('SIG-123', 'sig-123')).toBe(false);
  });

  it('never accepts anything against an unset (empty) secret', () => {
    expect(safeEqual('', '')).toBe(false);
    expect(safeEqual('anything', '')).toBe(false);
  });

  it('backs the Epay signature check', () => {
    const params = { pid: '1001', trade_no: 'T1', out_trade_no: 'O1', money: '10.00', trade_status: 'TRADE_SUCCESS', type: 'alipay' };
    const sign = epaySign(params, 'merchant-key');
    expect(epayVerify({ ...params, sign }, 'merchant-key')).toBe(true);
    expect(epayVerify({ ...params, sign: sign.toUpperCase() }, 'merchant-key')).toBe(true);
    expect(epayVerify({ ...params, sign: `${sign.slice(0, -1)}${sign.endsWith('0') ? '1' : '0'}` }, 'merchant-key')).toBe(false);
    expect(epayVerify({ ...params, sign }, 'other-key')).toBe(false);
    expect(epayVerify({ ...params, sign }, '')).toBe(false);
  });
});
