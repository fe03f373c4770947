import { Role, UserStatus } from '@modelgate/shared';
import type { AuthenticationResponse, SecondFactorMethods, TwoFactorStatus } from '@modelgate/shared/api';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import QRCode from 'qrcode';
// Its own sealing purpose (derived key), so a secret moved elsewhere does not open; rotation re-seals it.
import { TWO_FACTOR_SECRET_PURPOSE } from '../../crypto/reseal.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { UserRow } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import type { SessionStore } from '../../http/session-store.js';
import { nowSec } from '../../http/reply.js';
import type { OptionsService } from '../options/options.service.js';
import type { PasskeyService } from '../passkeys/passkeys.service.js';
import type { RelyingParty } from '../passkeys/relying-party.js';
import type { UsersRepository } from '../users/users.repository.js';
import { hashBackupCode, newBackupCodes } from './backup-codes.js';
import type { LoginFlows, PendingLogin } from './login-flow.js';
import { otpauthUri, newTotpSecret, totpStep } from './totp.js';
import type { TwoFactorRecord, TwoFactorRepository } from './two-factor.repository.js';


export interface TwoFactorDeps {
  repo: TwoFactorRepository;
  secrets: SecretBox;
  options: OptionsService;
  users: Pick<UsersRepository, 'findActiveById' | 'findAnyById'>;
  sessions: Pick<SessionStore, 'revokeUser'>;
  /** Wrong codes per account, counted like wrong passwords (http/login-throttle.ts). */
  throttle: LoginThrottle;
  flows: LoginFlows;
  /** Passkeys: each is a second factor too (docs/security.md#passkeys). */
  passkeys: PasskeyService;
}

/**
 * The second factor (docs/security.md#second-factor): TOTP enrolment, sign-in verification and
 * recovery, and a passkey as the other kind of second factor. An account has a second factor when
 * TOTP is on or it has a passkey; then a password or provider sign-in waits for either.
 */
export class TwoFactorService {
  /** Unix seconds: which TOTP step is current (tests move it to step through codes). */
  clock: () => number = nowSec;

  constructor(private readonly deps: TwoFactorDeps) {}

  private now(): number {
    return this.clock();
  }

  /** The throttle's account key: its own count, apart from the password's. */
  private account(userId: number): string {
    return `2fa:user:${userId}`;
  }

  /** TOTP is on, or the account has a passkey: a sign-in waits for the second factor. */
  async isEnabled(userId: number): Promise<boolean> {
    return (await this.deps.repo.isEnabled(userId)) || (await this.deps.passkeys.count(userId)) > 0;
  }

  /** The admin policy is on and this admin or root has no second factor yet (neither TOTP nor a passkey). */
  async enrolmentRequired(user: Pick<AuthUser, 'id' | 'role'>): Promise<boolean> {
    if (user.role < Role.Admin || !this.deps.options.bool('TwoFactorRequiredForAdmins')) return false;
    return !(await this.isEnabled(user.id));
  }

  async status(me: AuthUser): Promise<TwoFactorStatus> {
    const enabled = await this.deps.repo.isEnabled(me.id);
    const passkeys = await this.deps.passkeys.count(me.id);
    return {
      enabled,
      backup_codes_remaining: enabled ? await this.deps.repo.unusedBackupCodes(me.id) : 0,
      enrolment_required: !enabled && passkeys === 0 && (await this.enrolmentRequired(me)),
      passkeys,
    };
  }

  /** TOTP state and passkey counts for a page of users, in two queries whatever its length (the admin user list). */
  async summaries(userIds: readonly number[]): Promise<Map<number, { totp: boolean; passkeys: number }>> {
    const [totp, passkeys] = await Promise.all([this.deps.repo.enabledAmong(userIds), this.deps.passkeys.countByUsers(userIds)]);
    return new Map(userIds.map((id) => [id, { totp: totp.has(id), passkeys: passkeys.get(id) ?? 0 }]));
  }

  async setup(me: AuthUser): Promise<{ secret: string; qr_code_data: string; qr_code: string }> {
    const secret = newTotpSecret();
    if (!(await this.deps.repo.startEnrolment(me.id, this.deps.secrets.seal(TWO_FACTOR_SECRET_PURPOSE, secret), this.now()))) {
      throw new AppError('TWO_FACTOR_ALREADY_ENABLED');
    }
    const uri = otpauthUri(this.deps.options.str('SystemName') || 'ModelGate', me.username, secret);
    return { secret, qr_code_data: uri, qr_code: await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 1, width: 200 }) };
  }

  /** Confirms a pending enrolment with a code from the app; answers the backup codes (shown once). */
  async enable(me: AuthUser, code: string): Promise<string[]> {
    const rec = await this.deps.repo.find(me.id);
    if (rec?.enabled) throw new AppError('TWO_FACTOR_ALREADY_ENABLED');
    if (!rec) throw new AppError('TWO_FACTOR_SETUP_FIRST');
    await this.guarded(me.id, () => this.takeTotp(rec, code));
    const codes = newBackupCodes();
    if (!(await this.deps.repo.enable(me.id, codes.map(hashBackupCode), this.now()))) throw new AppError('TWO_FACTOR_ALREADY_ENABLED');
    return codes;
  }

  /** Turns the second factor off with a code from the app or a backup code. */
  async disable(me: AuthUser, code: string): Promise<void> {
    const rec = await this.enabledRecord(me.id);
    await this.guarded(me.id, () => this.takeAnyCode(rec, code));
    await this.deps.repo.remove(me.id);
  }

  /** New backup codes for a code from the app (a backup code cannot mint more of them). */
  async regenerateBackupCodes(me: AuthUser, code: string): Promise<string[]> {
    const rec = await this.enabledRecord(me.id);
    await this.guarded(me.id, () => this.takeTotp(rec, code));
    const codes = newBackupCodes();
    await this.deps.repo.replaceBackupCodes(me.id, codes.map(hashBackupCode));
    return codes;
  }

  /** Starts the second step of a sign-in whose first factor passed. */
  startLogin(pending: PendingLogin): Promise<string> {
    return this.deps.flows.issue(pending);
  }

  /**
   * Finishes a pending sign-in: the flow token must be live and the code right (throttled per
   * account); the token is then spent, so it signs in once. Answers the user to start a session for.
   */
  async finishLogin(token: string, code: string): Promise<{ row: UserRow; defaultPassword: boolean }> {
    const flow = await this.liveFlow(token);
    const userId = flow.pending.userId;
    const row = await this.deps.users.findActiveById(userId);
    // Banned or deleted since the password was checked: the same answer as a wrong password.
    if (!row || row.status !== UserStatus.Enabled) throw new AppError('LOGIN_FAILED');
    const rec = await this.deps.repo.find(userId);
    if (!rec?.enabled) {
      // Passkeys only: a code cannot finish this sign-in.
      if ((await this.deps.passkeys.count(userId)) > 0) throw new AppError('TWO_FACTOR_USE_PASSKEY');
      // Reset by root meanwhile: the pending sign-in predates the reset, sign in again.
      throw new AppError('TWO_FACTOR_FLOW_EXPIRED');
    }
    await this.guarded(userId, () => this.takeAnyCode(rec, code));
    return this.spendFlow(token, row, flow);
  }

  /** Which second factors a pending sign-in can be finished with. */
  async methods(token: string): Promise<SecondFactorMethods> {
    const flow = await this.liveFlow(token);
    const userId = flow.pending.userId;
    return { totp: await this.deps.repo.isEnabled(userId), passkey: (await this.deps.passkeys.count(userId)) > 0 };
  }

  /** Options to finish a pending sign-in with one of the account's passkeys. */
  async passkeyOptions(token: string, rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const flow = await this.liveFlow(token);
    return this.deps.passkeys.secondFactorOptions(flow.pending.userId, this.deps.flows.fingerprint(token), rp);
  }

  /**
   * Finishes a pending sign-in with a passkey: the assertion must answer a challenge issued for
   * this flow token, with one of the account's own passkeys; a wrong one is counted by the
   * per-account throttle like a wrong code. The flow token is then spent.
   */
  async finishLoginWithPasskey(token: string, response: AuthenticationResponse, rp: RelyingParty): Promise<{ row: UserRow; defaultPassword: boolean }> {
    const flow = await this.liveFlow(token);
    const userId = flow.pending.userId;
    const row = await this.deps.users.findActiveById(userId);
    if (!row || row.status !== UserStatus.Enabled) throw new AppError('LOGIN_FAILED');
    await this.guarded(userId, () => this.deps.passkeys.verifySecondFactor(userId, this.deps.flows.fingerprint(token), response, rp), 'PASSKEY_VERIFY_FAILED');
    return this.spendFlow(token, row, flow);
  }

  private async liveFlow(token: string): Promise<{ pending: PendingLogin; stored: string }> {
    const flow = await this.deps.flows.peek(token);
    if (!flow) throw new AppError('TWO_FACTOR_FLOW_EXPIRED');
    return flow;
  }

  /** Spends the flow token: of two requests finishing one sign-in, one gets the session. */
  private async spendFlow(token: string, row: UserRow, flow: { pending: PendingLogin; stored: string }): Promise<{ row: UserRow; defaultPassword: boolean }> {
    if (!(await this.deps.flows.finish(token, flow.stored))) throw new AppError('TWO_FACTOR_FLOW_EXPIRED');
    return { row, defaultPassword: flow.pending.defaultPassword };
  }

  /**
   * Root's reset for a user who lost their device (audited by the route): TOTP, its backup codes
   * and every passkey go; that user's sessions end.
   */
  async resetByRoot(userId: number): Promise<void> {
    const target = await this.deps.users.findAnyById(userId);
    if (!target) throw new AppError('USER_NOT_FOUND');
    if (!(await this.isEnabled(userId))) throw new AppError('TWO_FACTOR_NOT_ENABLED');
    await this.deps.repo.remove(userId);
    await this.deps.passkeys.removeAll(userId);
    await this.deps.throttle.succeed(this.account(userId));
    await this.deps.sessions.revokeUser(userId);
  }

  private async enabledRecord(userId: number): Promise<TwoFactorRecord> {
    const rec = await this.deps.repo.find(userId);
    if (!rec?.enabled) throw new AppError('TWO_FACTOR_NOT_ENABLED');
    return rec;
  }

  /** Runs a second-factor check under the per-account throttle: refused while locked, a wrong code (or passkey) counted. */
  private async guarded(userId: number, check: () => Promise<boolean>, wrong: 'TWO_FACTOR_CODE_INVALID' | 'PASSKEY_VERIFY_FAILED' = 'TWO_FACTOR_CODE_INVALID'): Promise<void> {
    const account = this.account(userId);
    await this.deps.throttle.check(account);
    if (!(await check())) {
      await this.deps.throttle.fail(account);
      throw new AppError(wrong);
    }
    await this.deps.throttle.succeed(account);
  }

  /** A TOTP code of a step later than the last accepted one, recorded so it is not taken again. */
  private async takeTotp(rec: TwoFactorRecord, code: string): Promise<boolean> {
    const secret = this.deps.secrets.open(TWO_FACTOR_SECRET_PURPOSE, rec.secret);
    const step = await totpStep(secret, code.trim(), rec.lastStep, this.now());
    return step !== null && (await this.deps.repo.takeStep(rec.userId, step, rec.enabled));
  }

  private async takeAnyCode(rec: TwoFactorRecord, code: string): Promise<boolean> {
    const typed = code.trim();
    if (/^\d{6}$/.test(typed)) return this.takeTotp(rec, typed);
    return typed !== '' && this.deps.repo.spendBackupCode(rec.userId, hashBackupCode(typed), this.now());
  }
}
