import { createHash, randomBytes } from 'node:crypto';
import type { SharedStore } from '../../cluster/shared-store.js';

/** How long a password (or provider) sign-in waits for its second factor. */
export const LOGIN_FLOW_TTL_MS = 5 * 60 * 1000;

/** What a pending sign-in remembers until its second factor arrives. */
export interface PendingLogin {
  userId: number;
  /** The password sign-in used root's first-start password (the console warns after the second factor). */
  defaultPassword: boolean;
}

/**
 * Pending sign-ins between the first factor and the second: a random flow token (256 bits) handed
 * to the browser, its sha256 the shared store's key (Redis when configured, else the database), so
 * any node can finish the sign-in and a leaked store holds nothing to replay. A token is taken
 * with compare-and-delete when the sign-in finishes: of two requests with it, one gets the session.
 */
export class LoginFlows {
  constructor(private readonly store: SharedStore) {}

  private key(token: string): string {
    return `2fa-login:${this.fingerprint(token)}`;
  }

  /** A flow token's public name (its hash): what a passkey challenge of this sign-in is bound to. */
  fingerprint(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  async issue(pending: PendingLogin): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.store.set(this.key(token), JSON.stringify({ u: pending.userId, d: pending.defaultPassword ? 1 : 0 }), LOGIN_FLOW_TTL_MS);
    return token;
  }

  /** The pending sign-in a token stands for, without spending it (a wrong code may be retried). */
  async peek(token: string): Promise<{ pending: PendingLogin; stored: string } | undefined> {
    if (!token) return undefined;
    const stored = await this.store.get(this.key(token));
    if (!stored) return undefined;
    const v = JSON.parse(stored) as { u: number; d: number };
    return { pending: { userId: v.u, defaultPassword: v.d === 1 }, stored };
  }

  /** Spends the token: true for the one caller that did. */
  async finish(token: string, stored: string): Promise<boolean> {
    return this.store.takeIf(this.key(token), stored);
  }
}
