import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { rateLimitHook } from '../../http/rate-limit.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { turnstileGuard } from '../../http/turnstile.js';
import { hashPassword, randomAlnum } from './password.js';
import { checkEmail } from './users.validate.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'codes' | 'config' | 'mailer' | 'options' | 'rateLimitStore' | 'sessions' | 'users'>;

/** Spec §9: a verification code is valid 3 minutes; a reset link a few minutes (15 here). */
export const VERIFICATION_TTL_MS = 3 * 60_000;
export const RESET_TTL_MS = 15 * 60_000;

/** Reference rule: an alias is a `+` (or a `.`) in the local part. */
function isAlias(email: string): boolean {
  const local = email.slice(0, email.lastIndexOf('@'));
  return local.includes('+') || local.includes('.');
}

/** Email verification codes, password-reset links and the reset itself (spec §7 Users). */
export function emailRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const critical = rateLimitHook('CT', ctx.config.rateLimits.critical, ctx.rateLimitStore);
  const turnstile = turnstileGuard(ctx);
  const o = ctx.options;
  const siteUrl = () => o.str('ServerAddress') || `http://localhost:${ctx.config.port}`;

  /**
   * Mail sent after the answer: awaiting it would make a known address answer slower than an
   * unknown one (an SMTP round trip), which tells an attacker which addresses have accounts.
   * Failures go to the log; SMTP being unset is still said up front, for every address alike.
   */
  const sendLater = (to: string, subject: string, html: string, before?: () => unknown): void => {
    void (async () => {
      await before?.();
      await ctx.mailer.send(to, subject, html);
    })().catch((err: unknown) => app.log.error({ err }, 'sending mail failed'));
  };

  declare('GET /api/verification', { guards: [critical, turnstile] }, async (req) => {
    const email = req.query.email.trim();
    checkEmail(email);
    if (o.bool('EmailDomainRestrictionEnabled')) {
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
      const allowed = o.str('EmailDomainWhitelist').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean);
      if (!allowed.includes(domain)) throw new AppError('EMAIL_DOMAIN_NOT_ALLOWED');
    }
    if (o.bool('EmailAliasRestrictionEnabled') && isAlias(email)) throw new AppError('EMAIL_ALIAS_NOT_ALLOWED');
    if (!ctx.mailer.configured) throw new AppError('MAIL_NOT_CONFIGURED');
    const subject = `${o.str('SystemName')} 邮箱验证邮件 / Email verification`;
    // A taken address gets the same answer as a free one (the reference said "already in use",
    // which let anyone test addresses). Its owner gets a notice instead of a code: no code means
    // the address cannot be registered or bound twice, and a notice tells them someone tried.
    if (await ctx.users.emailTaken(email)) {
      sendLater(
        email,
        subject,
        `<p>您好，有人尝试使用此邮箱地址在 ${o.str('SystemName')} 注册或绑定账户，但该地址已有账户。如果是您本人，请直接登录，或使用"忘记密码"重置密码；否则请忽略本邮件。</p>` +
          `<p>Someone tried to register or bind an account at ${o.str('SystemName')} with this address, which already has an account. If that was you, sign in or reset your password; otherwise ignore this mail.</p>`,
      );
      return ok();
    }
    const code = randomBytes(3).toString('hex');
    sendLater(
      email,
      subject,
      `<p>您好，你正在进行 ${o.str('SystemName')} 邮箱验证。</p><p>您的验证码为: <strong>${code}</strong></p><p>验证码 ${VERIFICATION_TTL_MS / 60_000} 分钟内有效，如果不是本人操作，请忽略。</p>` +
        `<p>Your verification code is <strong>${code}</strong>. It is valid for ${VERIFICATION_TTL_MS / 60_000} minutes.</p>`,
      () => ctx.codes.put('email', email, code, VERIFICATION_TTL_MS),
    );
    return ok();
  });

  declare('GET /api/reset_password', { guards: [critical, turnstile] }, async (req) => {
    const email = req.query.email.trim();
    checkEmail(email);
    if (!ctx.mailer.configured) throw new AppError('MAIL_NOT_CONFIGURED');
    // Known or not, the answer is the same success (the reference said "not registered"); only a
    // registered address is mailed a link. Addresses compare ignoring case, and the link goes to
    // the address as the account holds it (and names it), however it was typed here.
    const user = await ctx.users.findActiveByEmail(email);
    if (!user) return ok();
    const to = user.email;
    const token = randomBytes(16).toString('hex');
    const link = `${siteUrl()}/user/reset?email=${encodeURIComponent(to)}&token=${token}`;
    sendLater(
      to,
      `${o.str('SystemName')} 密码重置 / Password reset`,
      `<p>您好，你正在进行 ${o.str('SystemName')} 密码重置。</p><p>点击 <a href="${link}">此处</a> 进行密码重置。</p><p>如果链接无法点击，请尝试复制以下链接到浏览器中打开：<br>${link}</p>` +
        `<p>Open this link to reset your password (valid for ${RESET_TTL_MS / 60_000} minutes): ${link}</p>`,
      () => ctx.codes.put('reset', to, token, RESET_TTL_MS),
    );
    return ok();
  });

  declare('POST /api/user/reset', { guards: [critical] }, async (req) => {
    const { email, token } = req.body;
    if (!email || !token || !(await ctx.codes.consume('reset', email.trim(), token.trim()))) throw new AppError('RESET_LINK_INVALID');
    const user = await ctx.users.findActiveByEmail(email.trim());
    if (!user) throw new AppError('RESET_LINK_INVALID');
    const password = randomAlnum(12);
    await ctx.users.update(user.id, { password: await hashPassword(password), access_token: null });
    // Whoever knew the old password (the reason for a reset, often) is signed out everywhere, access token included.
    await ctx.sessions.revokeUser(user.id);
    return ok(password);
  });
}
