import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (v: string | Buffer) => createHash('sha256').update(v).digest();

/**
 * Constant-time equality for secrets, signatures and tokens: the one comparison every check of a
 * key, HMAC, signature or state uses. Both sides are hashed first, so neither the position of
 * the first difference nor the expected length shows in the time taken. An empty expected value
 * never matches (an unset secret must not accept an empty guess).
 */
export function safeEqual(given: string | Buffer, expected: string | Buffer): boolean {
  if (expected.length === 0) return false;
  return timingSafeEqual(digest(given), digest(expected));
}
