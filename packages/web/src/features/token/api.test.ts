import { describe, expect, it } from 'vitest';
import { formatTokensForCopy, fullKey, listStyleTotal, maskKey } from './api';

describe('listStyleTotal', () => {
  it('offers a next page while the current one is full', () => {
    expect(listStyleTotal(1, 10, 10)).toBe(11);
    expect(listStyleTotal(2, 10, 10)).toBe(21);
  });
  it('stops at the last partial page', () => {
    expect(listStyleTotal(1, 10, 3)).toBe(3);
    expect(listStyleTotal(3, 20, 5)).toBe(45);
  });
});

describe('keys', () => {
  it('adds the sk- prefix the server leaves out', () => {
    expect(fullKey({ key: 'abc' })).toBe('sk-abc');
  });
  it('masks the middle of long keys', () => {
    expect(maskKey({ key: 'abcdefghijklmnop' })).toBe('sk-abcd…mnop');
  });
  it('formats a selection one token per line', () => {
    expect(formatTokensForCopy([{ name: 'a', key: 'k1' }, { name: 'b', key: 'k2' }])).toBe('a    sk-k1\nb    sk-k2');
  });
});

