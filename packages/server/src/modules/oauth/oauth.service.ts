import { UserStatus, type Lang } from '@modelgate/shared';
import type { OAuthProvider } from '@modelgate/shared/api';
import type { SharedStore } from '../../cluster/shared-store.js';
import type { UserRow } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import type { OptionsService } from '../options/options.service.js';
import type { UsersRepository } from '../users/users.repository.js';
import type { IdentityColumn, UsersService } from '../users/users.service.js';
import type { VerificationCodes } from '../users/verification-codes.js';
import { checkEmail } from '../users/users.validate.js';
import { OAuthStates } from './oauth-state.js';
import { providerCall, str, type ProviderHttp } from './provider-http.js';
import { REDIRECT_PROVIDERS, type ExternalIdentity } from './providers.js';
import { verifyTelegram } from './telegram.js';

export interface OAuthServiceDeps {
  options: OptionsService;
  users: UsersRepository;
  usersService: UsersService;
  store: SharedStore;
  codes: VerificationCodes;
  http: ProviderHttp;
}

/** Every identity column a user can sign in with. */
const IDENTITY_COLUMNS: readonly IdentityColumn[] = ['github_id', 'linux_do_id', 'oidc_id', 'wechat_id', 'telegram_id', 'discord_id'];

/** How long one sign-up or bind holds its identity against a concurrent one (a lock, released at the end). */
const IDENTITY_LOCK_MS = 30_000;

/**
 * Sign-in and bindings through outside identities (spec §7 OAuth, reference §13): GitHub, LinuxDO
 * and generic OIDC by redirect, WeChat through a WeChat server, Telegram's login widget, and the
 * email bind. An identity unknown here creates a user (unless registration is closed), a known one
 * signs in, and a signed-in caller binds it — never one that another user already holds.
 */
export class OAuthService {
  readonly states: OAuthStates;

  constructor(private readonly deps: OAuthServiceDeps) {
    this.states = new OAuthStates(deps.store);
  }

  private provider(type: OAuthProvider) {
    const p = REDIRECT_PROVIDERS[type];
    if (!p.enabled(this.deps.options)) throw new AppError('OAUTH_NOT_ENABLED');
    return p;
  }

  async authorizeUrl(type: OAuthProvider, binding: string | undefined, init: { aff?: string; userId?: number; redirectUri: string }) {
    const p = this.provider(type);
    const issued = await this.states.issue(binding, init);
    const url = await p.authorizeUrl(this.deps, issued.state, issued.data, init.redirectUri);
    return { url, binding: issued.binding };
  }

  /** The callback of a redirect flow: a signed-in user to start a session for, or `bind` done. */
  async redirectCallback(
    type: OAuthProvider,
    q: { code: string; state: string; error?: string; error_description?: string },
    ctx: { binding: string | undefined; me: AuthUser | null; redirectUri: string; lang?: Lang },
  ): Promise<{ login: UserRow } | { bind: true }> {
    const p = this.provider(type);
    const data = await this.states.take(q.state, ctx.binding);
    if (q.error) throw new AppError('OAUTH_PROVIDER_DENIED', 200, q.error_description || q.error);
    if (!q.code) throw new AppError('OAUTH_CODE_MISSING');
    // A state issued to a signed-in user binds for that user only.
    if (data.userId && data.userId !== ctx.me?.id) throw new AppError('OAUTH_STATE_INVALID', 403);
    const identity = await p.identify(this.deps, q.code, data, ctx.redirectUri);
    // The identity columns are varchar(64) (oidc_id 191): a longer id cannot be stored, so it cannot be matched either.
    if (!identity.id || identity.id.length > (p.column === 'oidc_id' ? 191 : 64)) throw new AppError('OAUTH_PROFILE_INVALID');
    // A bind only when the state was issued for one: a session cookie that merely happens to be in
    // the browser at the callback (planted by someone else) must not get the identity bound to it.
    if (data.userId && ctx.me) {
      await this.bind(ctx.me, p.column, identity.id);
      return { bind: true };
    }
    return { login: await this.signIn(p.column, identity, { prefix: p.prefix, fallbackName: p.fallbackName, aff: data.aff, lang: ctx.lang }) };
  }

  /**
   * The user an identity belongs to, created when new. A new identity whose email an account
   * already holds (ignoring case: `KNOWN@Example.com` is `known@example.com`'s mailbox) creates
   * nothing: that person has an account, and signs in to it and binds the provider there. It is
   * not bound here on the email's word: not every provider has verified the address it reports.
   */
  async signIn(column: IdentityColumn, identity: ExternalIdentity, how: { prefix: string; fallbackName: string; aff?: string; noSignUp?: AppError; lang?: Lang }): Promise<UserRow> {
    const known = await this.deps.users.findByIdentity(column, identity.id);
    if (known) return this.usable(known);
    if (how.noSignUp) throw how.noSignUp;
    const email = identity.email.trim() && isEmail(identity.email.trim()) ? identity.email.trim() : undefined;
    return this.withIdentityLock(column, identity.id, async () => {
      // Created by a concurrent sign-in meanwhile: that user it is.
      const again = await this.deps.users.findByIdentity(column, identity.id);
      if (again) return this.usable(again);
      if (email && (await this.deps.users.emailTaken(email))) throw new AppError('OAUTH_EMAIL_TAKEN');
      return this.deps.usersService.registerExternal({
        prefix: how.prefix,
        column,
        externalId: identity.id,
        displayName: identity.displayName || how.fallbackName,
        email,
        affCode: how.aff,
        lang: how.lang,
      });
    });
  }

  private usable(row: UserRow): UserRow {
    if (row.deleted_at !== null) throw new AppError('OAUTH_USER_DELETED');
    if (row.status !== UserStatus.Enabled) throw new AppError('USER_BANNED');
    return row;
  }

  /** Binds (or rebinds) an identity to the caller; refused when another user holds it. */
  async bind(me: AuthUser, column: IdentityColumn, id: string): Promise<void> {
    if (me.status !== UserStatus.Enabled) throw new AppError('USER_BANNED');
    await this.withIdentityLock(column, id, async () => {
      const holder = await this.deps.users.findByIdentity(column, id);
      if (holder && holder.id !== me.id) throw new AppError('OAUTH_ALREADY_BOUND');
      if (!holder) await this.deps.users.update(me.id, { [column]: id });
    });
  }

  /**
   * Removes the caller's binding of a redirect-flow provider. Refused when nothing else would let
   * the person back in: no email to reset the password with and no other identity bound (a user a
   * provider created never learnt a password).
   */
  async unbind(me: AuthUser, type: OAuthProvider): Promise<void> {
    const column = REDIRECT_PROVIDERS[type].column;
    const row = me.row;
    if (!row[column]) return;
    const others = IDENTITY_COLUMNS.filter((c) => c !== column && row[c]);
    if (!row.email && others.length === 0) throw new AppError('OAUTH_UNBIND_LAST');
    await this.deps.users.update(me.id, { [column]: '' });
  }

  private async withIdentityLock<T>(column: IdentityColumn, id: string, fn: () => Promise<T>): Promise<T> {
    const key = `oauth-identity:${column}:${id}`;
    if (!(await this.deps.store.claim(key, '1', IDENTITY_LOCK_MS))) throw new AppError('OAUTH_SIGNUP_BUSY');
    try {
      return await fn();
    } finally {
      await this.deps.store.delete(key);
    }
  }

  // --- WeChat (through a WeChat server, reference §13) ---

  private async wechatOpenId(code: string): Promise<string> {
    const o = this.deps.options;
    if (!o.bool('WeChatAuthEnabled')) throw new AppError('OAUTH_NOT_ENABLED');
    if (!code.trim()) throw new AppError('OAUTH_CODE_MISSING');
    const answer = await providerCall(this.deps.http, `${o.str('WeChatServerAddress')}/api/wechat/user?code=${encodeURIComponent(code.trim())}`, {
      headers: { authorization: o.str('WeChatServerToken') },
    });
    if (answer.json.success !== true) throw new AppError('OAUTH_CODE_REJECTED', 200, str(answer.json.message) || `HTTP ${answer.status}`);
    const openId = str(answer.json.data);
    if (!openId) throw new AppError('OAUTH_PROFILE_INVALID');
    return openId;
  }

  async wechatLogin(code: string, lang?: Lang): Promise<UserRow> {
    const id = await this.wechatOpenId(code);
    return this.signIn('wechat_id', { id, displayName: '', email: '' }, { prefix: 'wechat', fallbackName: 'WeChat User', lang });
  }

  /** The reference's bind read the user from a session key it never set, so it never worked. */
  async wechatBind(me: AuthUser, code: string): Promise<void> {
    await this.bind(me, 'wechat_id', await this.wechatOpenId(code));
  }

  // --- Telegram login widget ---

  private telegramId(fields: Record<string, string>): string {
    const o = this.deps.options;
    if (!o.bool('TelegramOAuthEnabled')) throw new AppError('OAUTH_NOT_ENABLED');
    return verifyTelegram(fields, o.str('TelegramBotToken'));
  }

  /** Like the reference, Telegram signs in users who bound it; it does not create users. */
  async telegramLogin(fields: Record<string, string>): Promise<UserRow> {
    const id = this.telegramId(fields);
    return this.signIn('telegram_id', { id, displayName: '', email: '' }, { prefix: 'telegram', fallbackName: '', noSignUp: new AppError('TELEGRAM_NOT_BOUND') });
  }

  async telegramBind(me: AuthUser, fields: Record<string, string>): Promise<void> {
    await this.bind(me, 'telegram_id', this.telegramId(fields));
  }

  // --- email ---

  async emailBind(me: AuthUser, email: string, code: string): Promise<void> {
    email = email.trim();
    code = code.trim();
    if (!email || !code) throw new AppError('EMAIL_BIND_FIELDS');
    checkEmail(email);
    // The code first: a taken address is never mailed a code, so this answer says nothing about who holds it.
    if (!(await this.deps.codes.consume('email', email, code))) throw new AppError('VERIFICATION_CODE_INVALID');
    if (me.row.email === email) return;
    // Ignoring case, and past the caller: re-binding their own address in another case is theirs to do.
    if (await this.deps.users.emailTaken(email, me.id)) throw new AppError('EMAIL_TAKEN');
    await this.deps.users.update(me.id, { email });
  }
}

function isEmail(v: string): boolean {
  try {
    checkEmail(v);
    return true;
  } catch {
    return false;
  }
}
