import type { Aggregated, Granularity, Metric } from './aggregate';
import { bucketLabel } from './aggregate';
import type { ChartSpec } from './echart';

/** Theme colours the charts take from antd's tokens, so they follow light and dark mode. */
export interface ChartColors {
  text: string;
  secondary: string;
  border: string;
  background: string;
}

/** Models beyond this many are summed as one "other" series, so a legend stays readable. */
const MAX_SERIES = 8;

function topModels(a: Aggregated): { shown: string[]; rest: string[] } {
  const names = a.models.map((m) => m.model);
  return { shown: names.slice(0, MAX_SERIES), rest: names.slice(MAX_SERIES) };
}

function base(colors: ChartColors) {
  return {
    backgroundColor: 'transparent',
    textStyle: { color: colors.text },
    tooltip: { trigger: 'axis', backgroundColor: colors.background, borderColor: colors.border, textStyle: { color: colors.text } },
    legend: { type: 'scroll', bottom: 0, textStyle: { color: colors.secondary } },
    grid: { left: 8, right: 16, top: 16, bottom: 40, containLabel: true },
  };
}

/** A stacked bar (quota, requests) or line (tokens) chart of one metric per model over time. */
export function timeSeriesOption(a: Aggregated, metric: Metric, g: Granularity, colors: ChartColors, format: (v: number) => string, otherLabel: string): ChartSpec {
  const { shown, rest } = topModels(a);
  const line = metric === 'tokens';
  // One or two buckets would otherwise draw bars as wide as the chart.
  const series = shown.map((model) => ({ name: model, type: line ? 'line' : 'bar', stack: line ? undefined : metric, smooth: line, barMaxWidth: 48, data: a.series[metric][model] ?? [] }));
  if (rest.length) {
    const sum = a.buckets.map((_, i) => rest.reduce((acc, m) => acc + (a.series[metric][m]?.[i] ?? 0), 0));
    series.push({ name: otherLabel, type: line ? 'line' : 'bar', stack: line ? undefined : metric, smooth: line, barMaxWidth: 48, data: sum });
  }
  return {
    ...base(colors),
    tooltip: { ...base(colors).tooltip, valueFormatter: (v: unknown) => format(Number(v)) },
    xAxis: { type: 'category', data: a.buckets.map((b) => bucketLabel(b, g)), axisLine: { lineStyle: { color: colors.border } }, axisLabel: { color: colors.secondary } },
    yAxis: { type: 'value', axisLabel: { color: colors.secondary, formatter: (v: number) => format(v) }, splitLine: { lineStyle: { color: colors.border } } },
    series,
  };
}

/** Each model's share of the quota. */
export function shareOption(a: Aggregated, colors: ChartColors, format: (v: number) => string): ChartSpec {
  return {
    ...base(colors),
    tooltip: { trigger: 'item', backgroundColor: colors.background, borderColor: colors.border, textStyle: { color: colors.text }, valueFormatter: (v: unknown) => format(Number(v)) },
    series: [
      {
        type: 'pie',
        radius: ['40%', '68%'],
        top: 0,
        bottom: 32,
        label: { color: colors.secondary },
        itemStyle: { borderColor: colors.background, borderWidth: 2 },
        data: a.models.map((m) => ({ name: m.model, value: m.quota })),
      },
    ],
  };
}
