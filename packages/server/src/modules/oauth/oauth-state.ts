import { createHash, randomBytes } from 'node:crypto';
import type { SharedStore } from '../../cluster/shared-store.js';
import { safeEqual } from '../../crypto/safe-equal.js';
import { AppError } from '../../http/errors.js';

/** The cookie that binds a sign-in state to the browser that asked for it. */
export const OAUTH_COOKIE = 'oauth_binding';
/** A state lives as long as a person may reasonably spend on the provider's consent page. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** What a state carries from the start of a sign-in to its callback. */
export interface OAuthState {
  /** The invite code the sign-in began with (`?aff=`). */
  aff: string;
  /** PKCE code verifier (RFC 7636), sent with the token request. */
  verifier: string;
  /** OIDC nonce, checked in the ID token. */
  nonce: string;
  /** The user who was signed in when the state was made (a bind), else 0. */
  userId: number;
}

const digest = (v: string) => createHash('sha256').update(v).digest();

/**
 * Sign-in states in the shared store (Redis, else the database), so the node that answers the
 * callback need not be the one that issued the state. A state is taken once (atomic take), expires
 * after ten minutes, and only counts for the browser holding the matching binding cookie: a state
 * copied into someone else's browser (login CSRF, a link handed to a victim) is refused.
 */
export class OAuthStates {
  constructor(private readonly store: SharedStore) {}

  /** A new state; `binding` is the browser's cookie value (a new one is returned when it had none). */
  async issue(binding: string | undefined, init: { aff?: string; userId?: number }): Promise<{ state: string; binding: string; data: OAuthState }> {
    const cookie = binding && /^[A-Za-z0-9_-]{32,64}$/.test(binding) ? binding : randomBytes(24).toString('base64url');
    // 12 characters like the reference's state, from a larger alphabet.
    const state = randomBytes(9).toString('base64url');
    const data: OAuthState = { aff: init.aff?.trim().slice(0, 32) ?? '', verifier: randomBytes(32).toString('base64url'), nonce: randomBytes(16).toString('base64url'), userId: init.userId ?? 0 };
    await this.store.set(`oauth:${state}`, JSON.stringify({ ...data, b: digest(cookie).toString('base64url') }), OAUTH_STATE_TTL_MS);
    return { state, binding: cookie, data };
  }

  /** The state's data, consumed; 403 when it is unknown, used, expired or issued to another browser. */
  async take(state: string, binding: string | undefined): Promise<OAuthState> {
    if (!state || !binding || state.length > 64) throw new AppError('OAUTH_STATE_INVALID', 403);
    const raw = await this.store.take(`oauth:${state}`);
    if (!raw) throw new AppError('OAUTH_STATE_INVALID', 403);
    const stored = JSON.parse(raw) as OAuthState & { b: string };
    const expected = Buffer.from(stored.b, 'base64url');
    if (!safeEqual(digest(binding), expected)) throw new AppError('OAUTH_STATE_INVALID', 403);
    return { aff: stored.aff, verifier: stored.verifier, nonce: stored.nonce, userId: stored.userId };
  }
}

/** The S256 PKCE challenge of a verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
