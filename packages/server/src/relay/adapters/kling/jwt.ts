import { createHmac } from 'node:crypto';

const LIFETIME_S = 1800;
const RENEW_BEFORE_S = 300;
const cache = new Map<string, { token: string; exp: number }>();
const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** `AccessKey|SecretKey`, or undefined when the key does not have that shape. */
export function klingKeyParts(key: string): { ak: string; sk: string } | undefined {
  const [ak, sk, ...rest] = key.split('|').map((p) => p.trim());
  return ak && sk && rest.length === 0 ? { ak, sk } : undefined;
}

/**
 * Kling's API token (its "General Information"): an HS256 JWT whose issuer is the access key,
 * signed with the secret key, valid 30 minutes from 5 seconds ago. Derived from the key alone, so
 * each node signs its own; reused until shortly before it expires.
 */
export function klingToken(key: string, nowSec = Math.floor(Date.now() / 1000)): string | undefined {
  const hit = cache.get(key);
  if (hit && hit.exp - RENEW_BEFORE_S > nowSec) return hit.token;
  const parts = klingKeyParts(key);
  if (!parts) return undefined;
  const exp = nowSec + LIFETIME_S;
  const input = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify({ iss: parts.ak, exp, nbf: nowSec - 5 }))}`;
  const token = `${input}.${createHmac('sha256', parts.sk).update(input).digest('base64url')}`;
  cache.set(key, { token, exp });
  return token;
}
