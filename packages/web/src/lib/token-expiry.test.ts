import { describe, expect, it } from 'vitest';
import { expiryFromShortcut, formatExpiry, parseExpiry } from './token-expiry';

describe('parseExpiry', () => {
  it('maps empty input to never (-1)', () => {
    expect(parseExpiry('')).toBe(-1);
    expect(parseExpiry('  ')).toBe(-1);
    expect(parseExpiry('-1')).toBe(-1);
  });
  it('parses yyyy-MM-dd HH:mm:ss as local time in Unix seconds', () => {
    expect(parseExpiry('2030-01-02 03:04:05')).toBe(Math.ceil(new Date(2030, 0, 2, 3, 4, 5).getTime() / 1000));
  });
  it('rejects malformed or impossible dates', () => {
    expect(parseExpiry('tomorrow')).toBeNull();
    expect(parseExpiry('2030-13-01 00:00:00')).toBeNull();
    expect(parseExpiry('2030-02-30 00:00:00')).toBeNull();
    expect(parseExpiry('2030/01/01 00:00:00')).toBeNull();
  });
});

describe('formatExpiry', () => {
  it('round-trips with parseExpiry', () => {
    const ts = parseExpiry('2031-06-07 08:09:10');
    expect(formatExpiry(ts)).toBe('2031-06-07 08:09:10');
  });
  it('formats never as empty', () => {
    expect(formatExpiry(-1)).toBe('');
  });
});

describe('expiryFromShortcut', () => {
  const now = new Date(2030, 0, 31, 12, 0, 0);
  it('offers never, 1 hour, 1 day and 1 month (30 days)', () => {
    expect(expiryFromShortcut('never', now)).toBe('');
    expect(expiryFromShortcut('hour', now)).toBe('2030-01-31 13:00:00');
    expect(expiryFromShortcut('day', now)).toBe('2030-02-01 12:00:00');
    expect(expiryFromShortcut('month', now)).toBe('2030-03-02 12:00:00');
  });
});
