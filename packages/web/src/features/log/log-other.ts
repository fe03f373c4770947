import type { LogEntry } from './api';

/** The billing facts a consume row carries in `other` (spec §3 Usage log entry). */
export interface LogOther {
  model_ratio?: number;
  completion_ratio?: number;
  group_ratio?: number;
  /** Dollars per call, or -1 in ratio mode. */
  model_price?: number;
  /** First-token time, ms. */
  frt?: number;
  cache_tokens?: number;
  cache_ratio?: number;
  reasoning_tokens?: number;
  ws?: boolean;
  audio?: boolean;
  audio_input?: number;
  audio_output?: number;
  text_input?: number;
  text_output?: number;
  audio_ratio?: number;
  audio_completion_ratio?: number;
  admin_info?: { use_channel?: unknown[] };
  [key: string]: unknown;
}

/** `other` is a JSON string; "" or junk must not break the table (reference gotcha G4). */
export function parseOther(text: string | null | undefined): LogOther {
  if (!text || !text.trim()) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as LogOther) : {};
  } catch {
    return {};
  }
}

export const isConsume = (entry: Pick<LogEntry, 'type'>) => entry.type === 2 || entry.type === 0;

export type Tone = 'green' | 'orange' | 'red';

/** Spec §9: use time under 101 s green, under 300 s orange, else red. */
export function useTimeTone(seconds: number): Tone {
  if (seconds < 101) return 'green';
  if (seconds < 300) return 'orange';
  return 'red';
}

/** Spec §9: first-token time under 3 s green, under 10 s orange, else red. */
export function frtTone(ms: number): Tone {
  const seconds = ms / 1000;
  if (seconds < 3) return 'green';
  if (seconds < 10) return 'orange';
  return 'red';
}

const num = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

export type Breakdown =
  | { mode: 'price'; price: number; groupRatio: number; dollars: number }
  | {
      mode: 'ratio';
      prompt: number;
      completion: number;
      modelRatio: number;
      completionRatio: number;
      groupRatio: number;
      /** group × model × (prompt + completion × completion ratio), in quota units before rounding. */
      units: number;
      /** Spec §9: units / QuotaPerUnit. */
      dollars: number;
    };

/** The cost of a consume row recomputed from its own ratios, to show how the charge came about. */
export function costBreakdown(entry: Pick<LogEntry, 'prompt_tokens' | 'completion_tokens'>, other: LogOther, quotaPerUnit: number): Breakdown {
  const groupRatio = num(other.group_ratio, 1);
  const price = num(other.model_price, -1);
  if (price >= 0) return { mode: 'price', price, groupRatio, dollars: price * groupRatio };
  const modelRatio = num(other.model_ratio, 0);
  const completionRatio = num(other.completion_ratio, 1);
  const prompt = entry.prompt_tokens || 0;
  const completion = entry.completion_tokens || 0;
  const units = groupRatio * modelRatio * (prompt + completion * completionRatio);
  const dollars = units / (quotaPerUnit || 500000);
  return { mode: 'ratio', prompt, completion, modelRatio, completionRatio, groupRatio, units, dollars };
}

/** Trims float noise (0.30000000000000004) without hiding real digits. */
export function formatRatio(value: number): string {
  return String(Number(value.toPrecision(10)));
}

export function formatDollars(value: number): string {
  return `$${value.toFixed(6)}`;
}

export function usedChannels(other: LogOther): string[] {
  const list = other.admin_info?.use_channel;
  return Array.isArray(list) ? list.map(String) : [];
}
