import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import type { RateLimitStore } from './rate-limit.js';

/** How long a key is remembered: well past any client or proxy retry of the same submission. */
export const IDEMPOTENCY_WINDOW_MS = 10 * 60_000;
const KEY = /^[\w.:-]{8,128}$/;

/**
 * `Idempotency-Key` for creating routes where a repeated request would create twice (a token, a batch
 * of redemption codes, an account). The console sends one key per form submission. A repeat of a key
 * on this node gets the first request's answer (awaited while it runs); a repeat that reaches another
 * node while the key is held is refused with DUPLICATE_SUBMISSION (the hold lives in the shared
 * rate-limit store, Redis on several nodes). A request that failed frees its key, so a retry after
 * an error runs again. Requests without the header behave as before (reference clients send none).
 */
export function idempotency(store: RateLimitStore) {
  const seen = new Map<string, { at: number; answer: Promise<unknown> }>();

  function sweep(now: number): void {
    for (const [id, entry] of seen) {
      if (now - entry.at < IDEMPOTENCY_WINDOW_MS) break; // insertion order is time order
      seen.delete(id);
      void store.releaseSlot(`idem:${id}`, 'held');
    }
  }

  return async function once<T>(req: FastifyRequest, scope: string, run: () => Promise<T>): Promise<T> {
    const raw = req.headers['idempotency-key'];
    const key = typeof raw === 'string' ? raw.trim() : '';
    if (!key) return run();
    if (!KEY.test(key)) throw new AppError('INVALID_PARAMETER', 200, 'Idempotency-Key');
    const now = Date.now();
    sweep(now);
    // Per caller: one user's key never answers with another's result.
    const id = `${scope}:${req.authUser ? `u${req.authUser.id}` : `ip${req.ip}`}:${key}`;
    const earlier = seen.get(id);
    if (earlier) return earlier.answer as Promise<T>;
    let held = false;
    // Remembered before the first await, so a twin arriving meanwhile on this node waits for this answer.
    const answer = (async () => {
      held = await store.acquireSlot(`idem:${id}`, 'held', 1, IDEMPOTENCY_WINDOW_MS, now);
      if (!held) throw new AppError('DUPLICATE_SUBMISSION');
      return run();
    })();
    seen.set(id, { at: now, answer });
    try {
      return await answer;
    } catch (err) {
      seen.delete(id);
      if (held) await store.releaseSlot(`idem:${id}`, 'held');
      throw err;
    }
  };
}
