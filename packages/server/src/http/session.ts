import { signerFactory } from '@fastify/cookie';
import { createHash, randomBytes } from 'node:crypto';

/**
 * The session cookie is `<id>.<hmac(id)>`: a random session id, signed with SESSION_SECRET by
 * @fastify/cookie's signer (HMAC-SHA256, constant-time check) so a forged value is refused without a
 * database read (and rotating the secret ends every session).
 * The server keeps a record per session (`sessions`, keyed by sha256(id), see session-store.ts),
 * so logging out, a password change, a ban or a role change ends it on every node at once. The
 * reference kept user, role and status in a stateless cookie that outlived all of those: a bug.
 */
export const SESSION_COOKIE = 'session';
export const SESSION_TTL_SEC = 30 * 24 * 3600;

type Signer = ReturnType<typeof signerFactory>;
const signers = new Map<string, Signer>();
function signer(secret: string): Signer {
  let s = signers.get(secret);
  if (!s) signers.set(secret, (s = signerFactory(secret)));
  return s;
}

/** A fresh random session id (256 bits). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database stores: a leaked table cannot be replayed as cookies. */
export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

export function signSessionId(secret: string, id: string): string {
  return signer(secret).sign(id);
}

/** The session id inside a well-signed cookie value, else null. */
export function verifySessionCookie(secret: string, value: string | undefined): string | null {
  if (!value) return null;
  const r = signer(secret).unsign(value);
  return r.valid && r.value ? r.value : null;
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
