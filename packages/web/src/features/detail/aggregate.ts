import dayjs from '../../lib/dayjs';
import type { QuotaDataEntry } from '@modelgate/shared/api';

export type Granularity = 'hour' | 'day' | 'week';
export const GRANULARITIES: readonly Granularity[] = ['hour', 'day', 'week'];

export function asGranularity(value: unknown): Granularity {
  return GRANULARITIES.includes(value as Granularity) ? (value as Granularity) : 'hour';
}

/** Start (Unix seconds, local time) of the hour, day or week (from Monday) `ts` falls in. */
export function bucketStart(ts: number, g: Granularity): number {
  const d = dayjs.unix(ts);
  if (g === 'hour') return d.startOf('hour').unix();
  const day = d.startOf('day');
  if (g === 'day') return day.unix();
  return day.subtract((day.day() + 6) % 7, 'day').unix();
}

export type Metric = 'quota' | 'count' | 'tokens';

export interface ModelTotal {
  model: string;
  quota: number;
  count: number;
  tokens: number;
}

export interface Aggregated {
  /** Bucket starts, ascending (only buckets with usage). */
  buckets: number[];
  /** Models by total quota, largest first. */
  models: ModelTotal[];
  /** metric → model → one value per bucket. */
  series: Record<Metric, Record<string, number[]>>;
  totals: { quota: number; count: number; tokens: number };
}

/** Regroups the server's hourly rows per model into the chosen granularity, with totals. */
export function aggregate(rows: readonly QuotaDataEntry[], g: Granularity): Aggregated {
  const buckets = [...new Set(rows.map((r) => bucketStart(r.created_at, g)))].sort((a, b) => a - b);
  const index = new Map(buckets.map((b, i) => [b, i]));
  const byModel = new Map<string, ModelTotal>();
  const series: Aggregated['series'] = { quota: {}, count: {}, tokens: {} };
  const totals = { quota: 0, count: 0, tokens: 0 };
  for (const r of rows) {
    const i = index.get(bucketStart(r.created_at, g))!;
    const m = byModel.get(r.model_name) ?? { model: r.model_name, quota: 0, count: 0, tokens: 0 };
    byModel.set(r.model_name, m);
    const add = (metric: Metric, v: number) => {
      const line = (series[metric][r.model_name] ??= new Array<number>(buckets.length).fill(0));
      line[i]! += v;
    };
    add('quota', r.quota);
    add('count', r.count);
    add('tokens', r.token_used);
    m.quota += r.quota;
    m.count += r.count;
    m.tokens += r.token_used;
    totals.quota += r.quota;
    totals.count += r.count;
    totals.tokens += r.token_used;
  }
  const models = [...byModel.values()].sort((a, b) => b.quota - a.quota || b.count - a.count || a.model.localeCompare(b.model));
  return { buckets, models, series, totals };
}

/** Axis label of a bucket: `11-25 14:00` for hours, `2026-11-25` for days and weeks. */
export function bucketLabel(ts: number, g: Granularity): string {
  return dayjs.unix(ts).format(g === 'hour' ? 'MM-DD HH:mm' : 'YYYY-MM-DD');
}
