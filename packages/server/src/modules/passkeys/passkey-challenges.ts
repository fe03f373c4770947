import { createHash } from 'node:crypto';
import { PASSKEY_CEREMONY_TTL_MS } from '@modelgate/shared';
import type { SharedStore } from '../../cluster/shared-store.js';
import { AppError } from '../../http/errors.js';

/** What a challenge was issued for; an answer is only accepted by the ceremony of the same kind. */
export type Ceremony =
  | { kind: 'register'; userId: number; userHandle: string }
  | { kind: 'login' }
  /** A pending sign-in's second factor: `flow` is the flow token's fingerprint (login-flow.ts). */
  | { kind: 'second-factor'; userId: number; flow: string };

/**
 * WebAuthn challenges between a ceremony's options and its answer, in the shared store (Redis when
 * configured, else the database) under the challenge's sha256, so the answer may reach any node.
 * The answer's own client data names the challenge; taking it is atomic (read and delete in one
 * step), so a challenge is answered once whatever the outcome, and expires after five minutes.
 */
export class PasskeyChallenges {
  constructor(private readonly store: SharedStore) {}

  private key(challenge: string): string {
    return `passkey:${createHash('sha256').update(challenge).digest('base64url')}`;
  }

  async save(challenge: string, ceremony: Ceremony): Promise<void> {
    await this.store.set(this.key(challenge), JSON.stringify(ceremony), PASSKEY_CEREMONY_TTL_MS);
  }

  /**
   * Takes the ceremony the answer's `clientDataJSON` (base64url) was signed for: its challenge and
   * what it was issued for; PASSKEY_CHALLENGE_EXPIRED when it is unknown, spent, expired or of another kind.
   */
  async take<K extends Ceremony['kind']>(clientDataJSON: string, kind: K): Promise<{ challenge: string; ceremony: Extract<Ceremony, { kind: K }> }> {
    const challenge = challengeOf(clientDataJSON);
    const stored = await this.store.take(this.key(challenge));
    const ceremony = stored ? (JSON.parse(stored) as Ceremony) : undefined;
    if (ceremony?.kind !== kind) throw new AppError('PASSKEY_CHALLENGE_EXPIRED');
    return { challenge, ceremony: ceremony as Extract<Ceremony, { kind: K }> };
  }
}

/** The challenge a client data JSON carries (the library checks the rest of it). */
function challengeOf(clientDataJSON: string): string {
  let challenge: unknown;
  try {
    challenge = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch {
    throw new AppError('PASSKEY_RESPONSE_INVALID');
  }
  if (typeof challenge !== 'string' || challenge === '' || challenge.length > 512) throw new AppError('PASSKEY_RESPONSE_INVALID');
  return challenge;
}
