import { randomBytes } from 'node:crypto';
import { PASSKEYS_PER_USER_MAX, UserStatus } from '@modelgate/shared';
import type { AuthenticationResponse, Passkey, RegistrationResponse } from '@modelgate/shared/api';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { UserRow } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { nowSec } from '../../http/reply.js';
import type { UsersRepository } from '../users/users.repository.js';
import type { PasskeyChallenges } from './passkey-challenges.js';
import type { PasskeyRecord, PasskeysRepository } from './passkeys.repository.js';
import type { RelyingParty } from './relying-party.js';

export interface PasskeyDeps {
  repo: PasskeysRepository;
  challenges: PasskeyChallenges;
  users: Pick<UsersRepository, 'findActiveById'>;
  log: { warn(obj: object, msg: string): void };
}

/** How long the browser offers the ceremony (ms); the challenge lives a little longer (PASSKEY_CEREMONY_TTL_MS). */
const CEREMONY_TIMEOUT_MS = 120_000;

export function passkeyView(p: PasskeyRecord): Passkey {
  return { id: p.id, name: p.name, created_at: p.createdAt, last_used_at: p.lastUsedAt, backed_up: p.backedUp, transports: p.transports };
}

const descriptor = (p: PasskeyRecord) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransportFuture[] });

/** Registration, management and the assertion checks of passkeys (docs/security.md#passkeys). */
export class PasskeyService {
  /** Unix seconds (created and last-used times). */
  clock: () => number = nowSec;

  constructor(private readonly deps: PasskeyDeps) {}

  async list(userId: number): Promise<Passkey[]> {
    return (await this.deps.repo.listByUser(userId)).map(passkeyView);
  }

  count(userId: number): Promise<number> {
    return this.deps.repo.countByUser(userId);
  }

  countByUsers(userIds: readonly number[]): Promise<Map<number, number>> {
    return this.deps.repo.countByUsers(userIds);
  }

  removeAll(userId: number): Promise<number> {
    return this.deps.repo.removeAll(userId);
  }

  /**
   * A passkey is a way to sign in: only a console session adds or changes one. An access token
   * (a credential for scripts, like an API key) must not be turned into a sign-in of its own.
   */
  private sessionOnly(me: AuthUser): void {
    if (me.viaAccessToken) throw new AppError('PASSKEY_SESSION_ONLY');
  }

  async registrationOptions(me: AuthUser, rp: RelyingParty): Promise<PublicKeyCredentialCreationOptionsJSON> {
    this.sessionOnly(me);
    const existing = await this.deps.repo.listByUser(me.id);
    if (existing.length >= PASSKEYS_PER_USER_MAX) throw new AppError('PASSKEY_LIMIT', 200, undefined, { max: PASSKEYS_PER_USER_MAX });
    // One random handle per account (no user id or name given to authenticators): registering on
    // an authenticator that holds this account's passkey already is refused by `excludeCredentials`.
    const userHandle = (await this.deps.repo.userHandleOf(me.id)) ?? randomBytes(32).toString('base64url');
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: me.username,
      userDisplayName: me.row.display_name || me.username,
      userID: new Uint8Array(Buffer.from(userHandle, 'base64url')),
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map(descriptor),
      // Discoverable, so the passkey alone signs in (username-less); user verification preferred.
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    });
    await this.deps.challenges.save(options.challenge, { kind: 'register', userId: me.id, userHandle });
    return options;
  }

  async register(me: AuthUser, name: string, response: RegistrationResponse, rp: RelyingParty): Promise<Passkey> {
    this.sessionOnly(me);
    if (!name) throw new AppError('PASSKEY_NAME_REQUIRED');
    const { challenge, ceremony } = await this.deps.challenges.take(response.response.clientDataJSON, 'register');
    // A challenge issued to another account (its options leaked) registers nothing here.
    if (ceremony.userId !== me.id) throw new AppError('PASSKEY_CHALLENGE_EXPIRED');
    let info;
    try {
      const verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: false,
      });
      info = verified.verified ? verified.registrationInfo : undefined;
    } catch (err) {
      this.deps.log.warn({ err, userId: me.id }, 'passkey registration refused');
    }
    if (!info) throw new AppError('PASSKEY_VERIFY_FAILED');
    if ((await this.deps.repo.countByUser(me.id)) >= PASSKEYS_PER_USER_MAX) throw new AppError('PASSKEY_LIMIT', 200, undefined, { max: PASSKEYS_PER_USER_MAX });
    const saved = await this.deps.repo.insert({
      userId: me.id,
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      userHandle: ceremony.userHandle,
      counter: info.credential.counter,
      transports: (response.response.transports ?? []).filter((t) => /^[a-z-]{1,32}$/.test(t)),
      name,
      backedUp: info.credentialBackedUp,
      createdAt: this.clock(),
    });
    if (!saved) throw new AppError('PASSKEY_ALREADY_REGISTERED');
    return passkeyView(saved);
  }

  async rename(me: AuthUser, id: number, name: string): Promise<Passkey> {
    this.sessionOnly(me);
    if (!name) throw new AppError('PASSKEY_NAME_REQUIRED');
    if (!(await this.deps.repo.rename(me.id, id, name))) throw new AppError('PASSKEY_NOT_FOUND');
    const p = await this.deps.repo.findOwned(me.id, id);
    if (!p) throw new AppError('PASSKEY_NOT_FOUND');
    return passkeyView(p);
  }

  async remove(me: AuthUser, id: number): Promise<void> {
    this.sessionOnly(me);
    if (!(await this.deps.repo.remove(me.id, id))) throw new AppError('PASSKEY_NOT_FOUND');
  }

  /** Options for a sign-in with a passkey alone: no account named, the authenticator offers its discoverable credentials. */
  async loginOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'preferred', timeout: CEREMONY_TIMEOUT_MS });
    await this.deps.challenges.save(options.challenge, { kind: 'login' });
    return options;
  }

  /** A sign-in with a passkey alone: answers the (enabled, not deleted) user it belongs to. */
  async login(response: AuthenticationResponse, rp: RelyingParty): Promise<UserRow> {
    const { challenge } = await this.deps.challenges.take(response.response.clientDataJSON, 'login');
    const p = await this.deps.repo.findByCredential(response.id);
    if (!p) throw new AppError('PASSKEY_UNKNOWN');
    // With no account named, the authenticator must say whose credential it used, and the same as ours.
    if (!response.response.userHandle || response.response.userHandle !== p.userHandle) throw new AppError('PASSKEY_VERIFY_FAILED');
    const row = await this.deps.users.findActiveById(p.userId);
    if (!row || row.status !== UserStatus.Enabled) throw new AppError('PASSKEY_UNKNOWN');
    if (!(await this.assert(p, response, challenge, rp))) throw new AppError('PASSKEY_VERIFY_FAILED');
    return row;
  }

  /** Options for a pending sign-in's second factor: the account's own passkeys. */
  async secondFactorOptions(userId: number, flow: string, rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const mine = await this.deps.repo.listByUser(userId);
    if (mine.length === 0) throw new AppError('PASSKEY_NONE');
    const options = await generateAuthenticationOptions({ rpID: rp.id, allowCredentials: mine.map(descriptor), userVerification: 'preferred', timeout: CEREMONY_TIMEOUT_MS });
    await this.deps.challenges.save(options.challenge, { kind: 'second-factor', userId, flow });
    return options;
  }

  /**
   * A second factor: true when the answer is a valid assertion of one of `userId`'s passkeys to a
   * challenge issued for this pending sign-in (`flow`); false for a wrong one (counted by the
   * caller's throttle). A spent challenge or a counter that went backwards throws its own error.
   */
  async verifySecondFactor(userId: number, flow: string, response: AuthenticationResponse, rp: RelyingParty): Promise<boolean> {
    const { challenge, ceremony } = await this.deps.challenges.take(response.response.clientDataJSON, 'second-factor');
    if (ceremony.userId !== userId || ceremony.flow !== flow) throw new AppError('PASSKEY_CHALLENGE_EXPIRED');
    const p = await this.deps.repo.findByCredential(response.id);
    // Another account's passkey (or none) is no second factor of this one.
    if (!p || p.userId !== userId) return false;
    return this.assert(p, response, challenge, rp);
  }

  /** Checks the assertion's signature, origin, RP id and challenge, then its counter, and records the use. */
  private async assert(p: PasskeyRecord, response: AuthenticationResponse, challenge: string, rp: RelyingParty): Promise<boolean> {
    let newCounter: number;
    try {
      const verified = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        // The counter is compared below (its own message, and a conditional update across nodes).
        credential: { id: p.credentialId, publicKey: new Uint8Array(Buffer.from(p.publicKey, 'base64url')), counter: 0, transports: descriptor(p).transports },
        requireUserVerification: false,
      });
      if (!verified.verified) return false;
      newCounter = verified.authenticationInfo.newCounter;
    } catch (err) {
      this.deps.log.warn({ err, passkeyId: p.id, userId: p.userId }, 'passkey assertion refused');
      return false;
    }
    // The WebAuthn rule: when either counter is non-zero the new one must be above the stored one,
    // or the credential may have been cloned.
    const backwards = (newCounter > 0 || p.counter > 0) && newCounter <= p.counter;
    if (backwards || !(await this.deps.repo.recordUse(p.id, newCounter, this.clock()))) {
      this.deps.log.warn({ passkeyId: p.id, userId: p.userId, stored: p.counter, received: newCounter }, 'passkey signature counter did not increase: possible cloned authenticator');
      throw new AppError('PASSKEY_COUNTER_INVALID');
    }
    return true;
  }
}
