import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Stateless signed session cookie: `base64url(json).base64url(hmac)`. It carries only the user id
 * and expiry; role and status are read fresh from the database on each request, so a ban or a
 * demotion takes effect at once (the reference trusts role and status stored in the cookie: a bug).
 */
export const SESSION_COOKIE = 'session';
export const SESSION_TTL_SEC = 30 * 24 * 3600;

export interface SessionPayload {
  uid: number;
  exp: number;
  /** Optional extra state (OAuth state, Turnstile pass) kept by later sign-in flows. */
  extra?: Record<string, string | number | boolean>;
}

function sign(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('base64url');
}

export function encodeSession(secret: string, payload: SessionPayload): string {
  const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${data}.${sign(secret, data)}`;
}

export function decodeSession(secret: string, value: string | undefined, nowSec = Date.now() / 1000): SessionPayload | null {
  if (!value) return null;
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const data = value.slice(0, dot);
  const mac = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(secret, data));
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return null;
  try {
    const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as SessionPayload;
    if (typeof payload.uid !== 'number' || typeof payload.exp !== 'number' || payload.exp < nowSec) return null;
    return payload;
  } catch {
    return null;
  }
}

export function sessionCookieOptions(secure: boolean) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure,
    maxAge: SESSION_TTL_SEC,
  };
}
