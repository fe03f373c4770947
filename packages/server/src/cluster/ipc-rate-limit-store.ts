import type { MemoryRateLimitStore, RateLimitStore } from '../http/rate-limit.js';
import type { PrimaryLink } from './ipc.js';

/** The RateLimitStore methods a worker may call on the primary's store; nothing else is run. */
const OPS = ['hit', 'retryAfterMs', 'minuteUsage', 'addToMinute', 'acquireSlot', 'releaseSlot'] as const;
type Op = (typeof OPS)[number];

/**
 * The rate-limit store of a cluster worker without Redis: every call runs on the one
 * MemoryRateLimitStore the primary holds, so a limit of K per window is K on the machine rather
 * than K per worker, and an Idempotency-Key held by one worker is refused by the others
 * (http/idempotency.ts). With Redis the workers use the Redis store, like separate nodes.
 */
export class IpcRateLimitStore implements RateLimitStore {
  constructor(private readonly link: Pick<PrimaryLink, 'call'>) {}

  private run<T>(op: Op, args: unknown[]): Promise<T> {
    return this.link.call<T>({ mg: 'rl', op, args });
  }

  hit(key: string, max: number, windowMs: number, now: number): Promise<boolean> {
    return this.run('hit', [key, max, windowMs, now]);
  }

  retryAfterMs(key: string, max: number, windowMs: number, now: number): Promise<number> {
    return this.run('retryAfterMs', [key, max, windowMs, now]);
  }

  minuteUsage(key: string, now: number): Promise<number> {
    return this.run('minuteUsage', [key, now]);
  }

  addToMinute(key: string, n: number, max: number, now: number): Promise<boolean> {
    return this.run('addToMinute', [key, n, max, now]);
  }

  acquireSlot(key: string, member: string, limit: number, ttlMs: number, now: number): Promise<boolean> {
    return this.run('acquireSlot', [key, member, limit, ttlMs, now]);
  }

  releaseSlot(key: string, member: string): Promise<void> {
    return this.run('releaseSlot', [key, member]);
  }
}

/** The primary's side: runs a worker's call on `store` (synchronous, so calls from all workers are serialised). */
export function answerRateLimitCall(store: MemoryRateLimitStore, op: string, args: unknown[]): unknown {
  if (!(OPS as readonly string[]).includes(op) || !Array.isArray(args)) throw new Error(`unknown rate-limit call ${op}`);
  return (store[op as Op] as (...a: unknown[]) => unknown).apply(store, args);
}
