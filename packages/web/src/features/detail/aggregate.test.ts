import { describe, expect, it } from 'vitest';
import dayjs from '../../lib/dayjs';
import { aggregate, asGranularity, bucketStart } from './aggregate';

const at = (text: string) => dayjs(text).unix();
const row = (model: string, time: string, quota: number, count = 1, tokens = 10) => ({ model_name: model, created_at: at(time), quota, count, token_used: tokens });

describe('dashboard aggregation', () => {
  const rows = [row('gpt-4o', '2026-11-23 10:00', 100), row('gpt-4o', '2026-11-23 11:00', 50, 2, 20), row('claude', '2026-11-24 09:00', 500, 1, 5), row('gpt-4o', '2026-11-25 09:00', 10)];

  it('keeps hours, sums days and Monday-based weeks', () => {
    expect(aggregate(rows, 'hour').buckets).toHaveLength(4);
    const days = aggregate(rows, 'day');
    expect(days.buckets).toEqual([at('2026-11-23'), at('2026-11-24'), at('2026-11-25')]);
    expect(days.series.quota['gpt-4o']).toEqual([150, 0, 10]);
    expect(days.series.count['gpt-4o']).toEqual([3, 0, 1]);
    expect(days.series.tokens.claude).toEqual([0, 5, 0]);
    // 2026-11-23 is a Monday: the three days are one week.
    expect(aggregate(rows, 'week').buckets).toEqual([at('2026-11-23')]);
    expect(bucketStart(at('2026-11-29 23:00'), 'week')).toBe(at('2026-11-23'));
  });

  it('totals everything and orders models by quota', () => {
    const a = aggregate(rows, 'day');
    expect(a.totals).toEqual({ quota: 660, count: 5, tokens: 45 });
    expect(a.models.map((m) => m.model)).toEqual(['claude', 'gpt-4o']);
  });

  it('reads an unknown granularity as hour', () => {
    expect(asGranularity('day')).toBe('day');
    expect(asGranularity('month')).toBe('hour');
  });
});
