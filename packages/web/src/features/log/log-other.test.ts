import { describe, expect, it } from 'vitest';
import { formatRatio, frtTone, useTimeTone } from './log-other';

// Parsing `other` and recomputing the charge are tested with the cost formula in packages/shared.
describe('log display rules', () => {
  it('colours use time (<101 s, <300 s) and first-token time (<3 s, <10 s)', () => {
    expect([100, 101, 299, 300].map(useTimeTone)).toEqual(['green', 'orange', 'orange', 'red']);
    expect([2999, 3000, 9999, 10000].map(frtTone)).toEqual(['green', 'orange', 'orange', 'red']);
  });

  it('tidies ratios', () => {
    expect(formatRatio(0.1 + 0.2)).toBe('0.3');
  });
});
