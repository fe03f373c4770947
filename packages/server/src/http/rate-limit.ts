import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitSetting } from '../config/config.js';
import { AppError } from './errors.js';

/**
 * Sliding-log limiter per (mark, client IP), the reference's algorithm: at most `max` hits within
 * `windowSec`. The store is in-process; a shared store (Redis) plugs in for multi-node deployments.
 */
export interface RateLimitStore {
  /** Records a hit and returns true when it is allowed. */
  hit(key: string, max: number, windowMs: number, now: number): boolean | Promise<boolean>;
  /** After a refused `hit`: milliseconds until the oldest counted hit leaves the window (for Retry-After). */
  retryAfterMs(key: string, max: number, windowMs: number, now: number): number | Promise<number>;
  /**
   * Per-minute budgets (relay/usage-limits.ts): the amount used in the sliding minute ending `now`
   * (this minute's count plus the previous minute's, weighted by how much of it is still inside).
   */
  minuteUsage(key: string, now: number): number | Promise<number>;
  /** Adds `n` to this minute, when `minuteUsage` + `n` stays within `max` (or always, max = Infinity). */
  addToMinute(key: string, n: number, max: number, now: number): boolean | Promise<boolean>;
  /** Takes one of `limit` slots for `member` (expiring after `ttlMs`); false when all are taken. */
  acquireSlot(key: string, member: string, limit: number, ttlMs: number, now: number): boolean | Promise<boolean>;
  releaseSlot(key: string, member: string): void | Promise<void>;
}

const MINUTE_MS = 60_000;

/** The sliding-minute estimate from two fixed-minute counters. */
export function slidingMinute(current: number, previous: number, now: number): number {
  const intoMinute = (now % MINUTE_MS) / MINUTE_MS;
  return current + previous * (1 - intoMinute);
}

/** The fixed minute `now` falls in (bucket suffix). */
export function minuteOf(now: number): number {
  return Math.floor(now / MINUTE_MS);
}

export class MemoryRateLimitStore implements RateLimitStore {
  /** Each key keeps its own window: limits with different windows (per IP, per token) share the map. */
  private readonly logs = new Map<string, { hits: number[]; windowMs: number }>();
  private sweeps = 0;

  hit(key: string, max: number, windowMs: number, now: number): boolean {
    let log = this.logs.get(key);
    if (!log) {
      log = { hits: [], windowMs };
      this.logs.set(key, log);
    }
    log.windowMs = windowMs;
    const hits = log.hits;
    while (hits.length && now - hits[0]! >= windowMs) hits.shift();
    if (++this.sweeps % 10_000 === 0) this.sweep(now);
    if (hits.length >= max) return false;
    hits.push(now);
    return true;
  }

  retryAfterMs(key: string, max: number, windowMs: number, now: number): number {
    const hits = this.logs.get(key)?.hits ?? [];
    // The hit whose expiry frees a slot: the max-th newest (the log never holds more than max).
    const oldest = hits[Math.max(0, hits.length - max)];
    return oldest === undefined ? 0 : Math.max(0, oldest + windowMs - now);
  }

  private readonly minutes = new Map<string, number>();
  private readonly slots = new Map<string, Map<string, number>>();

  minuteUsage(key: string, now: number): number {
    const m = minuteOf(now);
    return slidingMinute(this.minutes.get(`${key}:${m}`) ?? 0, this.minutes.get(`${key}:${m - 1}`) ?? 0, now);
  }

  addToMinute(key: string, n: number, max: number, now: number): boolean {
    if (this.minuteUsage(key, now) + n > max) return false;
    const m = minuteOf(now);
    const k = `${key}:${m}`;
    this.minutes.set(k, (this.minutes.get(k) ?? 0) + n);
    if (++this.sweeps % 10_000 === 0) this.sweep(now);
    return true;
  }

  acquireSlot(key: string, member: string, limit: number, ttlMs: number, now: number): boolean {
    let held = this.slots.get(key);
    if (!held) this.slots.set(key, (held = new Map()));
    for (const [m, until] of held) if (until <= now) held.delete(m);
    if (held.size >= limit) return false;
    held.set(member, now + ttlMs);
    return true;
  }

  releaseSlot(key: string, member: string): void {
    const held = this.slots.get(key);
    held?.delete(member);
    if (held && held.size === 0) this.slots.delete(key);
  }

  private sweep(now: number): void {
    const current = minuteOf(now);
    for (const k of this.minutes.keys()) if (Number(k.slice(k.lastIndexOf(':') + 1)) < current - 1) this.minutes.delete(k);
    for (const [k, log] of this.logs) if (!log.hits.length || now - log.hits[log.hits.length - 1]! >= log.windowMs) this.logs.delete(k);
  }
}

/**
 * Counts one hit on `key`; when refused, sets Retry-After (whole seconds, at least 1) and throws a 429
 * whose message says when to retry, so a console can tell the user instead of showing an empty list.
 */
export async function limitOrThrow(store: RateLimitStore, key: string, setting: RateLimitSetting, reply: FastifyReply): Promise<void> {
  const windowMs = setting.windowSec * 1000;
  const now = Date.now();
  if (await store.hit(key, setting.max, windowMs, now)) return;
  const seconds = Math.max(1, Math.ceil((await store.retryAfterMs(key, setting.max, windowMs, now)) / 1000));
  reply.header('Retry-After', String(seconds));
  throw new AppError('TOO_MANY_REQUESTS_RETRY', 429, undefined, { seconds });
}

export function rateLimitHook(mark: string, setting: RateLimitSetting, store: RateLimitStore) {
  return async function limit(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!setting.enabled) return;
    await limitOrThrow(store, `${mark}:${req.ip}`, setting, reply);
  };
}
