import { describe, expect, it } from 'vitest';
import { costBreakdown, formatRatio, frtTone, parseOther, usedChannels, useTimeTone } from './log-other';

describe('log other', () => {
  it('never throws on empty or broken JSON (gotcha G4)', () => {
    expect(parseOther('')).toEqual({});
    expect(parseOther('{oops')).toEqual({});
    expect(parseOther('[1]')).toEqual({});
    expect(parseOther('{"frt":12}')).toEqual({ frt: 12 });
  });

  it('recomputes the spec §9 cost: group × model × (prompt + completion × completion ratio) / 500000', () => {
    const bill = costBreakdown({ prompt_tokens: 6, completion_tokens: 5 }, { model_ratio: 15, completion_ratio: 2, group_ratio: 1.5, model_price: -1 }, 500000);
    expect(bill).toMatchObject({ mode: 'ratio', units: 1.5 * 15 * (6 + 10), dollars: (1.5 * 15 * (6 + 10)) / 500000 });
    expect(costBreakdown({ prompt_tokens: 1, completion_tokens: 1 }, { model_price: 0.04, group_ratio: 2 }, 500000)).toEqual({
      mode: 'price', price: 0.04, groupRatio: 2, dollars: 0.08,
    });
  });

  it('colours use time (<101 s, <300 s) and first-token time (<3 s, <10 s)', () => {
    expect([100, 101, 299, 300].map(useTimeTone)).toEqual(['green', 'orange', 'orange', 'red']);
    expect([2999, 3000, 9999, 10000].map(frtTone)).toEqual(['green', 'orange', 'orange', 'red']);
  });

  it('reads the channel chain and tidies ratios', () => {
    expect(usedChannels({ admin_info: { use_channel: [3, '5'] } })).toEqual(['3', '5']);
    expect(usedChannels({})).toEqual([]);
    expect(formatRatio(0.1 + 0.2)).toBe('0.3');
  });
});
