/**
 * Periodic limits and plan allowances (docs/ledger.md "Windows and plans"): caps per window —
 * a rolling 5 hours, a calendar day, week (Monday first) or month in the site's time zone (the
 * `TimeZone` option) — in quota and in requests. One definition for the server, which enforces
 * them in the ledger, and the console, which edits and shows them.
 */
import { INT32_MAX, QUOTA_MAX } from './validation.js';

export const PERIOD_WINDOWS = ['5h', 'day', 'week', 'month'] as const;
export type PeriodWindow = (typeof PERIOD_WINDOWS)[number];

/**
 * The rolling window's length. Like Claude's, it opens with the first request after the previous
 * one closed and refills all at once five hours after it opened.
 */
export const ROLLING_WINDOW_SEC = 5 * 3600;

/** A window's caps; 0 = no cap in that unit. */
export interface WindowCap {
  quota: number;
  requests: number;
}

/** Caps by window; a window that is absent (or all zero) is not limited. */
export type PeriodLimits = Partial<Record<PeriodWindow, WindowCap>>;

export function isPeriodWindow(v: unknown): v is PeriodWindow {
  return typeof v === 'string' && (PERIOD_WINDOWS as readonly string[]).includes(v);
}

/** Why a limits object cannot be stored (`window.unit`), or null when it can. */
export function periodLimitsProblem(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v !== 'object' || Array.isArray(v)) return 'period_limits';
  for (const [w, cap] of Object.entries(v as Record<string, unknown>)) {
    if (!isPeriodWindow(w)) return w;
    if (cap === null || cap === undefined) continue;
    if (typeof cap !== 'object' || Array.isArray(cap)) return w;
    for (const [unit, n] of Object.entries(cap as Record<string, unknown>)) {
      const max = unit === 'quota' ? QUOTA_MAX : unit === 'requests' ? INT32_MAX : -1;
      if (max < 0) return `${w}.${unit}`;
      if (n === undefined || n === null) continue;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > max) return `${w}.${unit}`;
    }
  }
  return null;
}

/** Only the windows that cap something, in window order; caps as integers. Assumes `periodLimitsProblem` found nothing. */
export function normalisePeriodLimits(v: unknown): PeriodLimits {
  const out: PeriodLimits = {};
  if (!v || typeof v !== 'object') return out;
  const src = v as Record<string, Partial<WindowCap> | null | undefined>;
  for (const w of PERIOD_WINDOWS) {
    const cap = src[w];
    const quota = Math.max(0, Math.trunc(Number(cap?.quota ?? 0))) || 0;
    const requests = Math.max(0, Math.trunc(Number(cap?.requests ?? 0))) || 0;
    if (quota > 0 || requests > 0) out[w] = { quota, requests };
  }
  return out;
}

export function hasPeriodLimits(l: PeriodLimits | null | undefined): boolean {
  return !!l && Object.keys(l).length > 0;
}

/** The stored form: '' for no limits, else compact JSON. */
export function serialisePeriodLimits(l: PeriodLimits): string {
  const n = normalisePeriodLimits(l);
  return hasPeriodLimits(n) ? JSON.stringify(n) : '';
}

/** The stored form read back; anything unreadable is no limits (a column written by this code only). */
export function parsePeriodLimits(stored: string | null | undefined): PeriodLimits {
  if (!stored) return {};
  try {
    const v: unknown = JSON.parse(stored);
    return periodLimitsProblem(v) === null ? normalisePeriodLimits(v) : {};
  } catch {
    return {};
  }
}

// ---- time zones ----

const formats = new Map<string, Intl.DateTimeFormat>();

function format(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formats.set(tz, f);
  }
  return f;
}

/** An IANA zone name the runtime knows (`Asia/Shanghai`, `UTC`, `America/New_York`). */
export function isTimeZone(tz: string): boolean {
  if (!tz || tz.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(tz)) return false;
  try {
    format(tz);
    return true;
  } catch {
    return false;
  }
}

/** The zone windows are counted in: the option's, or (unset or unknown) the server's own. */
export function resolveTimeZone(option: string | undefined): string {
  if (option && isTimeZone(option)) return option;
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

interface Wall {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  /** 0 = Monday. */
  wd: number;
}

function wall(ms: number, tz: string): Wall {
  const p: Record<string, string> = {};
  for (const part of format(tz).formatToParts(new Date(ms))) p[part.type] = part.value;
  return { y: Number(p.year), m: Number(p.month), d: Number(p.day), h: Number(p.hour), mi: Number(p.minute), s: Number(p.second), wd: WEEKDAYS.indexOf(p.weekday ?? 'Mon') };
}

/** How far the zone's wall clock is ahead of UTC at `ms`. */
function offsetMs(ms: number, tz: string): number {
  const w = wall(ms, tz);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s) - (ms - (((ms % 1000) + 1000) % 1000));
}

/** The instant of local midnight starting day `d` of month `m0` (0-based; overflow rolls over) of `y`. */
function midnight(y: number, m0: number, d: number, tz: string): number {
  const guess = Date.UTC(y, m0, d);
  const first = guess - offsetMs(guess, tz);
  // Once more at the found instant: the offset there may differ (a daylight-saving change that day).
  return guess - offsetMs(first, tz);
}

export interface Period {
  /** Unix seconds the period opened. */
  start: number;
  /** Unix seconds it refills (exclusive end). */
  end: number;
}

/**
 * The period a request made at `nowSec` falls in when it opens a new one: the calendar day, week
 * or month containing it in `tz`, or for the rolling window five hours from now.
 */
export function periodAt(window: PeriodWindow, nowSec: number, tz: string): Period {
  if (window === '5h') return { start: nowSec, end: nowSec + ROLLING_WINDOW_SEC };
  const w = wall(nowSec * 1000, tz);
  let from: number;
  let to: number;
  if (window === 'day') {
    from = midnight(w.y, w.m - 1, w.d, tz);
    to = midnight(w.y, w.m - 1, w.d + 1, tz);
  } else if (window === 'week') {
    from = midnight(w.y, w.m - 1, w.d - w.wd, tz);
    to = midnight(w.y, w.m - 1, w.d - w.wd + 7, tz);
  } else {
    from = midnight(w.y, w.m - 1, 1, tz);
    to = midnight(w.y, w.m, 1, tz);
  }
  return { start: Math.floor(from / 1000), end: Math.floor(to / 1000) };
}

/** `2026-11-30 00:00` in `tz` (messages name a refill time in the site's zone). */
export function formatInZone(sec: number, tz: string): string {
  const w = wall(sec * 1000, tz);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${w.y}-${two(w.m)}-${two(w.d)} ${two(w.h)}:${two(w.mi)}`;
}

// ---- meters ----

/** Whose window a meter or a refusal is about. */
export type WindowScope = 'user' | 'token' | 'plan';

/** One window as people and scripts see it (`/api/user/self`, the key-usage endpoints, the console's meters). */
export interface WindowMeter {
  scope: WindowScope;
  /** The token's or the subscription's id (the user's own id for `user`). */
  id: number;
  /** The plan's name for `plan`, the token's for `token`, '' for `user`. */
  name: string;
  window: PeriodWindow;
  quota_limit: number;
  quota_used: number;
  requests_limit: number;
  requests_used: number;
  /** Unix seconds the window refills; 0 when it has not opened yet (nothing used). */
  refill_at: number;
}

/** What is left of a meter in a unit (Infinity when that unit has no cap). */
export function meterLeft(m: Pick<WindowMeter, 'quota_limit' | 'quota_used' | 'requests_limit' | 'requests_used'>, unit: 'quota' | 'requests'): number {
  const limit = unit === 'quota' ? m.quota_limit : m.requests_limit;
  const used = unit === 'quota' ? m.quota_used : m.requests_used;
  return limit > 0 ? Math.max(0, limit - used) : Infinity;
}
