import { createHmac } from 'node:crypto';

/** How long a signed token lives, and how long before its end a new one is signed. */
const LIFETIME_MS = 60 * 60 * 1000;
const RENEW_BEFORE_MS = 5 * 60 * 1000;

interface Cached {
  token: string;
  exp: number;
}

/**
 * Signed tokens per key. The token is derived from the key alone (no exchange with the vendor), so
 * each node signing its own is equivalent: nothing here is shared state another node must see.
 */
const cache = new Map<string, Cached>();

const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** `id.secret` split, or undefined when the key does not have that shape. */
export function zhipuKeyParts(key: string): { id: string; secret: string } | undefined {
  const parts = key.trim().split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { id: parts[0], secret: parts[1] };
}

/**
 * Zhipu's API token (reference §4): an HS256 JWT signed with the key's secret, whose header carries
 * the vendor's `sign_type: "SIGN"` and whose payload gives `api_key`, `exp` and `timestamp` in
 * milliseconds. Reused until shortly before it expires.
 */
export function zhipuToken(key: string, now = Date.now()): string | undefined {
  const hit = cache.get(key);
  if (hit && hit.exp - RENEW_BEFORE_MS > now) return hit.token;
  const parts = zhipuKeyParts(key);
  if (!parts) return undefined;
  const exp = now + LIFETIME_MS;
  const head = b64url(JSON.stringify({ alg: 'HS256', sign_type: 'SIGN', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ api_key: parts.id, exp, timestamp: now }));
  const sig = createHmac('sha256', parts.secret).update(`${head}.${payload}`).digest('base64url');
  const token = `${head}.${payload}.${sig}`;
  cache.set(key, { token, exp });
  return token;
}
