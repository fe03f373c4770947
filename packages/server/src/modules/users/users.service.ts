import { formatQuota, quotaLogText, Role, usernameKey, UserStatus, type Lang } from '@modelgate/shared';
import type { Config } from '../../config/config.js';
import type { Db } from '../../db/client.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import type { SessionStore } from '../../http/session-store.js';
import type { QuotaLedger } from '../../ledger/quota-ledger.js';
import type { OptionsService } from '../options/options.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { UsersRepository } from './users.repository.js';
import type { VerificationCodes } from './verification-codes.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { UserRow } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { nowSec } from '../../http/reply.js';
import { changeUserQuota } from './admin-quota.js';
import { welcomeNewUser } from './welcome.js';
import { adminEditPatch, manageOutcome, usernameTakenError, type AdminEdit, type ManageAction } from './admin-actions.js';
import { hashPassword, randomAlnum, verifyPassword } from './password.js';
import { checkDisplayName, checkEmail, checkNotCommonPassword, checkPassword, checkUsername } from './users.validate.js';

export interface RegisterInput {
  username: string;
  password: string;
  password2?: string;
  email?: string;
  verification_code?: string;
  aff_code?: string;
}

/** The user columns that hold an identity at a sign-in provider. */
export type IdentityColumn = 'github_id' | 'linux_do_id' | 'oidc_id' | 'wechat_id' | 'telegram_id' | 'discord_id';

/** How long after signing in a session may change its password without the current one. */
export const SUDO_WINDOW_SEC = 5 * 60;

function freshSignIn(me: AuthUser): boolean {
  return !me.viaAccessToken && me.signedInAt !== undefined && nowSec() - me.signedInAt <= SUDO_WINDOW_SEC;
}

/** The password the reference seeds root with; the console warns while it is still in use. */
export const DEFAULT_ROOT_PASSWORD = '123456';

/** What the users service works with; built once by create-context.ts. */
export interface UsersServiceDeps {
  config: Pick<Config, 'initialRootPassword' | 'generateDefaultToken' | 'rejectCommonPasswords'>;
  db: Db;
  users: UsersRepository;
  options: OptionsService;
  codes: VerificationCodes;
  sessions: SessionStore;
  quotaLedger: QuotaLedger;
  tokensService: TokensService;
  /** Failed password sign-ins per account (http/login-throttle.ts). */
  loginThrottle: LoginThrottle;
}

export class UsersService {
  constructor(private readonly deps: UsersServiceDeps) {}

  private get repo() {
    return this.deps.users;
  }

  /** Creates `root` on an empty database (master node only, like the reference). */
  async ensureRoot(): Promise<boolean> {
    if ((await this.repo.count()) > 0) return false;
    let id: number;
    try {
      id = await this.repo.insert({
        username: 'root',
        password: await hashPassword(this.deps.config.initialRootPassword),
        display_name: 'Root User',
        role: Role.Root,
        status: UserStatus.Enabled,
        quota: 0,
        aff_code: await this.freshAffCode(),
        created_at: nowSec(),
      });
    } catch (e) {
      // Two masters starting on one empty database: the other one created root first.
      if (isUniqueViolation(e)) return false;
      throw e;
    }
    await this.deps.quotaLedger.move({ kind: 'root', userId: id, quota: 100_000_000 });
    return true;
  }

  private async freshAffCode(): Promise<string> {
    for (let i = 0; i < 20; i++) {
      const code = randomAlnum(4);
      if (!(await this.repo.affCodeTaken(code))) return code;
    }
    return randomAlnum(8);
  }

  async register(input: RegisterInput, lang: Lang = 'zh'): Promise<void> {
    const o = this.deps.options;
    if (!o.bool('RegisterEnabled')) throw new AppError('REGISTER_DISABLED');
    if (!o.bool('PasswordRegisterEnabled')) throw new AppError('PASSWORD_REGISTER_DISABLED');
    const username = input.username?.trim() ?? '';
    checkUsername(username);
    if (!input.password) throw new AppError('LOGIN_REQUIRED_FIELDS');
    checkPassword(input.password);
    checkNotCommonPassword(input.password, username, this.deps.config.rejectCommonPasswords);
    if (input.password2 !== undefined && input.password2 !== '' && input.password2 !== input.password) {
      throw new AppError('PASSWORDS_DIFFER');
    }
    let email = '';
    if (o.bool('EmailVerificationEnabled')) {
      email = input.email?.trim() ?? '';
      if (!email || !input.verification_code) throw new AppError('EMAIL_CODE_REQUIRED');
      checkEmail(email);
      if (!(await this.deps.codes.consume('email', email, input.verification_code.trim()))) throw new AppError('VERIFICATION_CODE_INVALID');
      if (await this.repo.emailTaken(email)) throw new AppError('EMAIL_TAKEN');
    }
    await this.assertUsernameFree(username);

    const inviter = input.aff_code?.trim() ? await this.repo.findByAffCode(input.aff_code.trim()) : undefined;
    let id: number;
    try {
      id = await this.repo.insert({
        username,
        password: await hashPassword(input.password),
        display_name: username,
        role: Role.Common,
        status: UserStatus.Enabled,
        email,
        quota: 0,
        aff_code: await this.freshAffCode(),
        inviter_id: inviter?.id ?? 0,
        created_at: nowSec(),
      });
    } catch (e) {
      // Two registrations racing for one name (or two spellings of it): the unique index decides, the loser gets the same message.
      await this.assertUsernameFree(username);
      throw e;
    }
    await welcomeNewUser(this.deps, id, username, inviter, lang);
  }

  /** USERNAME_TAKEN for a name in use as typed, USERNAME_TAKEN_IGNORING_CASE for another spelling of one (`ROOT` beside `root`). */
  private async assertUsernameFree(username: string, exceptId?: number): Promise<void> {
    const taken = await this.repo.usernameTaken(username, exceptId);
    if (taken) throw usernameTakenError(taken);
  }

  /**
   * A user signing up through a sign-in provider (GitHub, LinuxDO, OIDC, WeChat): `<prefix>_<n>`,
   * the provider's display name and email (when no one holds that address yet), the invite code
   * the sign-in state carried, and the same gifts as a password sign-up. Returns the new row.
   */
  async registerExternal(input: { prefix: string; column: IdentityColumn; externalId: string; displayName: string; email?: string; affCode?: string; lang?: Lang }): Promise<UserRow> {
    const o = this.deps.options;
    if (!o.bool('RegisterEnabled')) throw new AppError('REGISTER_DISABLED');
    const email = input.email && !(await this.repo.emailTaken(input.email)) ? input.email : '';
    const inviter = input.affCode?.trim() ? await this.repo.findByAffCode(input.affCode.trim()) : undefined;
    const displayName = [...input.displayName].slice(0, 20).join('');
    let id = 0;
    let username = '';
    for (let attempt = 0; !id; attempt++) {
      username = `${input.prefix}_${(await this.repo.maxId()) + 1 + attempt}`;
      if (await this.repo.usernameTaken(username)) continue;
      try {
        id = await this.repo.insert({
          username,
          password: '',
          display_name: displayName,
          role: Role.Common,
          status: UserStatus.Enabled,
          email,
          [input.column]: input.externalId,
          quota: 0,
          aff_code: await this.freshAffCode(),
          inviter_id: inviter?.id ?? 0,
          created_at: nowSec(),
        });
      } catch (e) {
        // Another sign-up took the same number meanwhile: try the next one.
        if (!isUniqueViolation(e) || attempt > 20) throw e;
      }
    }
    await welcomeNewUser(this.deps, id, username, inviter, input.lang ?? 'zh');
    return (await this.repo.findActiveById(id))!;
  }

  private display() {
    const o = this.deps.options;
    return { quotaPerUnit: o.num('QuotaPerUnit'), displayInCurrency: o.bool('DisplayInCurrencyEnabled') };
  }

  formatQuota(quota: number): string {
    return quotaLogText(quota, this.display());
  }

  async login(name: string, password: string): Promise<UserRow> {
    if (!this.deps.options.bool('PasswordLoginEnabled')) throw new AppError('PASSWORD_LOGIN_DISABLED');
    if (!name || !password) throw new AppError('LOGIN_REQUIRED_FIELDS');
    const row = await this.repo.findForLogin(name.trim());
    // Counted per account (its username and email share one count), and per name typed for
    // unknown ones, so a lock says nothing about which names exist. An unknown name is counted
    // in the form names are compared in, so `GHOST` and `ghost` share one count as they would
    // share one account.
    const account = row ? `user:${row.id}` : `name:${usernameKey(name)}`;
    await this.deps.loginThrottle.check(account);
    // Compare even for unknown users so timing does not reveal which usernames exist.
    const okPw = await verifyPassword(password, row?.password ?? '$2a$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinvali');
    if (!row || !okPw) {
      await this.deps.loginThrottle.fail(account);
      throw new AppError('LOGIN_FAILED');
    }
    if (row.status !== UserStatus.Enabled) throw new AppError('LOGIN_FAILED');
    await this.deps.loginThrottle.succeed(account);
    return row;
  }

  async updateSelf(me: AuthUser, body: { username?: string; display_name?: string; password?: string; original_password?: string }): Promise<void> {
    const patch: Record<string, unknown> = {};
    if (body.username !== undefined && body.username.trim() !== me.username) {
      const username = body.username.trim();
      checkUsername(username);
      // Their own name in another case (`alice` → `Alice`) is theirs to take.
      await this.assertUsernameFree(username, me.id);
      patch.username = username;
    }
    if (body.display_name !== undefined) {
      checkDisplayName(body.display_name);
      patch.display_name = body.display_name;
    }
    if (body.password) {
      // Whoever borrows an open session must not be able to lock the owner out: the current password
      // is asked for, except within minutes of a fresh sign-in ("sudo mode"), which is how the
      // reference console (it sends none) and accounts signed in through OAuth can change theirs.
      if (!body.original_password) {
        if (!freshSignIn(me)) throw new AppError('ORIGINAL_PASSWORD_REQUIRED');
      } else if (!(await verifyPassword(body.original_password, me.row.password))) throw new AppError('ORIGINAL_PASSWORD_WRONG');
      checkPassword(body.password);
      checkNotCommonPassword(body.password, me.username, this.deps.config.rejectCommonPasswords);
      patch.password = await hashPassword(body.password);
      // Every credential but the one that made the change ends: the access token too, unless the
      // change came through it (as the session that made it stays signed in).
      if (!me.viaAccessToken) patch.access_token = null;
    }
    if (Object.keys(patch).length) await this.updateChecked(me.id, patch);
    if (patch.password) await this.deps.sessions.revokeUser(me.id, me.sessionKey);
  }

  /** An update that may rename: a rename racing another one to the same name loses with USERNAME_TAKEN, not a 500. */
  private async updateChecked(id: number, patch: Record<string, unknown>): Promise<void> {
    try {
      await this.repo.update(id, patch);
    } catch (e) {
      if (patch.username !== undefined && isUniqueViolation(e)) throw usernameTakenError((await this.repo.usernameTaken(String(patch.username), id)) ?? 'exact');
      throw e;
    }
  }

  async deleteSelf(me: AuthUser): Promise<void> {
    if (me.role >= Role.Root) throw new AppError('ROOT_SELF_DELETE');
    await this.softDelete(me.id);
  }

  private async softDelete(id: number): Promise<void> {
    await this.repo.update(id, { deleted_at: nowSec(), access_token: null });
    await this.deps.db.db.updateTable('tokens').set({ status: 2 }).where('user_id', '=', id).execute();
    await this.deps.sessions.revokeUser(id);
  }

  async regenerateAccessToken(me: AuthUser): Promise<string> {
    const token = randomAlnum(32);
    await this.repo.update(me.id, { access_token: token });
    return token;
  }

  async affCode(me: AuthUser): Promise<string> {
    if (me.row.aff_code) return me.row.aff_code;
    // Set only if still empty: of two first calls racing, both answer the code that was kept.
    await this.deps.db.db
      .updateTable('users')
      .set({ aff_code: await this.freshAffCode() })
      .where('id', '=', me.id)
      .where((eb) => eb.or([eb('aff_code', 'is', null), eb('aff_code', '=', '')]))
      .execute();
    return (await this.repo.findAnyById(me.id))?.aff_code ?? '';
  }

  /** Moves pending invitation earnings into spendable quota, atomically. */
  async affTransfer(me: AuthUser, quota: number): Promise<void> {
    const min = this.deps.options.num('QuotaPerUnit');
    // The detail follows the message into either language: the amount as the console shows it, not the log's wording.
    if (!Number.isInteger(quota) || quota < min) throw new AppError('AFF_TRANSFER_MIN', 200, formatQuota(min, this.display()));
    const res = await this.deps.quotaLedger.move({ kind: 'aff_transfer', userId: me.id, aff: -quota, quota });
    if (res !== 'applied') throw new AppError('AFF_QUOTA_INSUFFICIENT');
  }

  // --- admin ---

  /** The reference's rule: act only on users of a lower role, unless you are the super admin. */
  private assertCanActOn(me: AuthUser, target: UserRow, code: 'CANNOT_READ_HIGHER' | 'CANNOT_UPDATE_HIGHER' | 'CANNOT_DELETE_HIGHER'): void {
    if (me.role <= target.role && me.role !== Role.Root) throw new AppError(code);
  }

  async getForAdmin(me: AuthUser, id: number): Promise<UserRow> {
    const row = await this.repo.findAnyById(id);
    if (!row) throw new AppError('USER_NOT_FOUND');
    this.assertCanActOn(me, row, 'CANNOT_READ_HIGHER');
    return row;
  }

  async createByAdmin(me: AuthUser, body: { username?: string; password?: string; display_name?: string; role?: number }): Promise<void> {
    const username = body.username?.trim() ?? '';
    if (!username || !body.password) throw new AppError('LOGIN_REQUIRED_FIELDS');
    checkUsername(username);
    checkPassword(body.password);
    checkNotCommonPassword(body.password, username, this.deps.config.rejectCommonPasswords);
    const displayName = body.display_name?.trim() || username;
    checkDisplayName(displayName);
    if (body.role !== undefined && body.role >= me.role) throw new AppError('CANNOT_CREATE_HIGHER');
    await this.assertUsernameFree(username);
    let id: number;
    try {
      id = await this.repo.insert({
        username,
        password: await hashPassword(body.password),
        display_name: displayName,
        role: Role.Common,
        status: UserStatus.Enabled,
        quota: 0,
        aff_code: await this.freshAffCode(),
        created_at: nowSec(),
      });
    } catch (e) {
      await this.assertUsernameFree(username);
      throw e;
    }
    const gift = this.deps.options.num('QuotaForNewUser');
    if (gift > 0) await this.deps.quotaLedger.move({ kind: 'signup', userId: id, quota: gift, actorId: me.id });
  }

  async updateByAdmin(
    me: AuthUser,
    body: AdminEdit & { id: number; quota?: number; add_quota?: number },
  ): Promise<UserRow> {
    const target = await this.repo.findActiveById(body.id);
    if (!target) throw new AppError('USER_NOT_FOUND');
    this.assertCanActOn(me, target, 'CANNOT_UPDATE_HIGHER');
    if (body.role !== undefined && body.role !== target.role && body.role >= me.role) throw new AppError('CANNOT_RAISE_ROLE');
    const patch = await adminEditPatch(
      target,
      body,
      (name) => this.repo.usernameTaken(name, target.id),
      (email) => this.repo.emailTaken(email, target.id),
    );
    if (Object.keys(patch).length) await this.updateChecked(target.id, patch);
    if (patch.password !== undefined || patch.role !== undefined) await this.deps.sessions.revokeUser(target.id);

    await changeUserQuota(this.deps, me, target, body);
    return (await this.repo.findAnyById(target.id))!;
  }

  async manage(me: AuthUser, id: number, action: ManageAction): Promise<{ status: number; role: number }> {
    const target = await this.repo.findActiveById(id);
    if (!target) throw new AppError('USER_NOT_FOUND');
    this.assertCanActOn(me, target, 'CANNOT_UPDATE_HIGHER');
    const { status, role, softDelete } = manageOutcome(me, target, action);
    if (softDelete) {
      await this.softDelete(target.id);
      return { status, role };
    }
    // A ban ends the access token for good, as it ends the sessions: re-enabling brings neither back.
    await this.repo.update(target.id, action === 'disable' ? { status, role, access_token: null } : { status, role });
    // A ban or a role change ends the user's sessions: the next sign-in starts from the new state.
    if (action !== 'enable') await this.deps.sessions.revokeUser(target.id);
    return { status, role };
  }

  /** Hard delete (`DELETE /api/user/:id`): strictly lower roles only, even for the super admin. */
  async hardDelete(me: AuthUser, id: number): Promise<void> {
    const target = await this.repo.findAnyById(id);
    if (!target) throw new AppError('USER_NOT_FOUND');
    if (me.role <= target.role) throw new AppError('CANNOT_DELETE_HIGHER');
    await this.repo.hardDelete(id);
    await this.deps.sessions.revokeUser(id);
  }

  isDefaultRootPassword(row: UserRow, password: string): boolean {
    return row.role === Role.Root && password === DEFAULT_ROOT_PASSWORD;
  }
}
