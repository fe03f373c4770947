/**
 * When the server last refused us with 429, and until when (from its Retry-After). The server counts
 * every /api call in one budget, so while it lasts every list would come back empty: list screens
 * read this to say "too many requests, retry in N s" instead of "no data".
 */
let until = 0;
const listeners = new Set<() => void>();

export function noteRateLimited(retryAfterSec: number, now = Date.now()): void {
  until = Math.max(until, now + Math.max(1, retryAfterSec) * 1000);
  for (const listener of listeners) listener();
}

export function rateLimitedUntil(): number {
  return until;
}

export function subscribeRateLimit(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
