import { describe, expect, it } from 'vitest';
import { LOG_PARTITION_AHEAD_DAYS, monthStart, periodOf, plannedPartitions } from './log-partitions.js';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('usage log partition periods (UTC)', () => {
  it('cuts days and months at UTC midnight, across a year\'s end', () => {
    expect(periodOf('day', at('2026-12-31T23:59:59Z'))).toEqual({ start: at('2026-12-31T00:00:00Z'), end: at('2027-01-01T00:00:00Z'), label: '20261231' });
    expect(periodOf('month', at('2026-12-15T08:00:00Z'))).toEqual({ start: at('2026-12-01T00:00:00Z'), end: at('2027-01-01T00:00:00Z'), label: '202612' });
    expect(periodOf('month', at('2028-02-29T12:00:00Z')).end).toBe(at('2028-03-01T00:00:00Z'));
    expect(monthStart(at('2026-11-28T23:41:00Z'))).toBe(at('2026-11-01T00:00:00Z'));
  });

  it('plans contiguous partitions a week ahead, the first one from where the last one ended', () => {
    const now = at('2026-11-28T10:00:00Z');
    const days = plannedPartitions('postgres', 'day', at('2026-11-27T00:00:00Z'), now);
    expect(days.map((p) => p.name)).toEqual(['logs_p20261127', 'logs_p20261128', 'logs_p20261129', 'logs_p20261130', 'logs_p20261201', 'logs_p20261202', 'logs_p20261203', 'logs_p20261204', 'logs_p20261205']);
    expect(days.at(-1)!.start).toBeLessThanOrEqual(now + LOG_PARTITION_AHEAD_DAYS * 86_400);
    for (let i = 1; i < days.length; i++) expect(days[i]!.start).toBe(days[i - 1]!.end);
    // Changed from day to month with days made up to the 2nd: one month partition from there to the month's end.
    const months = plannedPartitions('mysql', 'month', at('2026-12-03T00:00:00Z'), now);
    expect(months).toEqual([{ name: 'p202612', start: at('2026-12-03T00:00:00Z'), end: at('2027-01-01T00:00:00Z') }]);
  });
});
