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

  private sweep(now: number): void {
    for (const [k, log] of this.logs) if (!log.hits.length || now - log.hits[log.hits.length - 1]! >= log.windowMs) this.logs.delete(k);
  }
}

export function rateLimitHook(mark: string, setting: RateLimitSetting, store: RateLimitStore) {
  const windowMs = setting.windowSec * 1000;
  return async function limit(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (!setting.enabled) return;
    const ok = await store.hit(`${mark}:${req.ip}`, setting.max, windowMs, Date.now());
    if (!ok) throw new AppError('TOO_MANY_REQUESTS', 429);
  };
}
