import { Role, UserStatus } from '@modelgate/shared';
import type { TwoFactorStatus } from '@modelgate/shared/api';
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
}

/** TOTP enrolment, sign-in verification and recovery (docs/security.md#second-factor). */
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

  isEnabled(userId: number): Promise<boolean> {
    return this.deps.repo.isEnabled(userId);
  }

  /** The admin policy is on and this admin or root has no second factor yet. */
  async enrolmentRequired(user: Pick<AuthUser, 'id' | 'role'>): Promise<boolean> {
    if (user.role < Role.Admin || !this.deps.options.bool('TwoFactorRequiredForAdmins')) return false;
    return !(await this.deps.repo.isEnabled(user.id));
  }

  async status(me: AuthUser): Promise<TwoFactorStatus> {
    const enabled = await this.deps.repo.isEnabled(me.id);
    return {
      enabled,
      backup_codes_remaining: enabled ? await this.deps.repo.unusedBackupCodes(me.id) : 0,
      enrolment_required: !enabled && (await this.enrolmentRequired(me)),
    };
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
    const flow = await this.deps.flows.peek(token);
    if (!flow) throw new AppError('TWO_FACTOR_FLOW_EXPIRED');
    const userId = flow.pending.userId;
    const row = await this.deps.users.findActiveById(userId);
    // Banned or deleted since the password was checked: the same answer as a wrong password.
    if (!row || row.status !== UserStatus.Enabled) throw new AppError('LOGIN_FAILED');
    const rec = await this.deps.repo.find(userId);
    // Reset by root meanwhile: the pending sign-in predates the reset, sign in again.
    if (!rec?.enabled) throw new AppError('TWO_FACTOR_FLOW_EXPIRED');
    await this.guarded(userId, () => this.takeAnyCode(rec, code));
    if (!(await this.deps.flows.finish(token, flow.stored))) throw new AppError('TWO_FACTOR_FLOW_EXPIRED');
    return { row, defaultPassword: flow.pending.defaultPassword };
  }

  /** Root's reset for a user who lost their device (audited by the route); ends that user's sessions. */
  async resetByRoot(userId: number): Promise<void> {
    const target = await this.deps.users.findAnyById(userId);
    if (!target) throw new AppError('USER_NOT_FOUND');
    if (!(await this.deps.repo.isEnabled(userId))) throw new AppError('TWO_FACTOR_NOT_ENABLED');
    await this.deps.repo.remove(userId);
    await this.deps.throttle.succeed(this.account(userId));
    await this.deps.sessions.revokeUser(userId);
  }

  private async enabledRecord(userId: number): Promise<TwoFactorRecord> {
    const rec = await this.deps.repo.find(userId);
    if (!rec?.enabled) throw new AppError('TWO_FACTOR_NOT_ENABLED');
    return rec;
  }

  /** Runs a code check under the per-account throttle: refused while locked, a wrong code counted. */
  private async guarded(userId: number, check: () => Promise<boolean>): Promise<void> {
    const account = this.account(userId);
    await this.deps.throttle.check(account);
    if (!(await check())) {
      await this.deps.throttle.fail(account);
      throw new AppError('TWO_FACTOR_CODE_INVALID');
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
