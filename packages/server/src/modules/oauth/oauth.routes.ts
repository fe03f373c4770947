import { OAUTH_PROVIDERS, type OAuthProvider } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { UserRow } from '../../db/schema.js';
import { authGuards, caller, resolveCaller, type AuthUser } from '../../http/auth.js';
import { requestLang } from '../../http/errors.js';
import { rateLimitHook } from '../../http/rate-limit.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { outboundAllowList } from '../../net/address-policy.js';
import { afterFirstFactor } from '../two-factor/sign-in.js';
import { loginView } from '../users/user-view.js';
import { OAUTH_COOKIE, OAUTH_STATE_TTL_MS } from './oauth-state.js';
import { OAuthService } from './oauth.service.js';
import { TelegramPayloads } from './telegram.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'cluster' | 'codes' | 'config' | 'options' | 'rateLimitStore' | 'sessions' | 'twoFactor' | 'users' | 'usersService'>;

/** `/api/oauth/*` (spec §7 OAuth); schemas in `@modelgate/shared/api` (oauth.ts). */
export function oauthRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const critical = rateLimitHook('CT', ctx.config.rateLimits.critical, ctx.rateLimitStore);
  const svc = new OAuthService({
    options: ctx.options,
    users: ctx.users,
    usersService: ctx.usersService,
    store: ctx.cluster.store,
    codes: ctx.codes,
    http: { timeoutMs: ctx.config.oauthTimeoutMs, allow: () => outboundAllowList(ctx.options) },
  });
  const https = (req: FastifyRequest) => req.protocol === 'https';
  /** The console's callback screen, which the provider sends the browser back to. */
  const redirectUri = (req: FastifyRequest, type: OAuthProvider) => `${ctx.options.str('ServerAddress') || `${req.protocol}://${req.host}`}/oauth/${type}`;

  /** The caller when a console session is open; on these public routes anything else is just "not signed in". */
  const optionalCaller = async (req: FastifyRequest): Promise<AuthUser | null> => {
    try {
      return await resolveCaller(ctx, req);
    } catch {
      return null;
    }
  };

  const setBinding = (req: FastifyRequest, reply: FastifyReply, binding: string) => {
    reply.setCookie(OAUTH_COOKIE, binding, { path: '/api/oauth', httpOnly: true, sameSite: 'lax', secure: https(req), maxAge: OAUTH_STATE_TTL_MS / 1000 });
  };

  /**
   * A new session for the user, like a password sign-in (the session this browser held before
   * ends); with a second factor on, the flow token for it instead (modules/two-factor/sign-in.ts).
   */
  const startSession = async (req: FastifyRequest, reply: FastifyReply, row: UserRow) => {
    const challenge = await afterFirstFactor(ctx, req, reply, row);
    return challenge ? ok(challenge) : ok(loginView(row));
  };

  declare('GET /api/oauth/state', { guards: [critical] }, async (req, reply) => {
    const me = await optionalCaller(req);
    const issued = await svc.states.issue(req.cookies?.[OAUTH_COOKIE], { aff: req.query.aff, userId: me?.id });
    setBinding(req, reply, issued.binding);
    return ok(issued.state);
  });

  declare('GET /api/oauth/authorize', { guards: [critical] }, async (req, reply) => {
    const me = await optionalCaller(req);
    const type = req.query.type;
    const { url, binding } = await svc.authorizeUrl(type, req.cookies?.[OAUTH_COOKIE], { aff: req.query.aff, userId: me?.id, redirectUri: redirectUri(req, type) });
    setBinding(req, reply, binding);
    return ok(url);
  });

  for (const type of OAUTH_PROVIDERS) {
    declare(`GET /api/oauth/${type}`, { guards: [critical] }, async (req, reply) => {
      const me = await optionalCaller(req);
      const result = await svc.redirectCallback(type, req.query, { binding: req.cookies?.[OAUTH_COOKIE], me, redirectUri: redirectUri(req, type), lang: requestLang(req) });
      if ('bind' in result) return { success: true as const, message: 'bind' as const };
      return startSession(req, reply, result.login);
    });
  }

  declare('DELETE /api/oauth/bind', { guards: [critical] }, async (req) => {
    await svc.unbind(caller(req), req.query.type);
    return ok();
  });

  declare('GET /api/oauth/wechat', { guards: [critical] }, async (req, reply) => startSession(req, reply, await svc.wechatLogin(req.query.code, requestLang(req))));
  declare('GET /api/oauth/wechat/bind', { guards: [critical] }, async (req) => {
    await svc.wechatBind(caller(req), req.query.code);
    return ok();
  });
  declare('GET /api/oauth/email/bind', { guards: [critical] }, async (req) => {
    await svc.emailBind(caller(req), req.query.email, req.query.code);
    return ok();
  });
  const telegram = new TelegramPayloads(ctx.cluster.store);
  /**
   * Spends a Telegram payload before the service acts on it, so a replay — here or on another
   * node — neither signs in nor binds. With Telegram sign-in off the service refuses and says so;
   * a payload that fails verification is refused here and spends nothing.
   */
  const spendTelegram = async (fields: Record<string, string>) => {
    if (ctx.options.bool('TelegramOAuthEnabled')) await telegram.accept(fields, ctx.options.str('TelegramBotToken'));
  };
  declare('GET /api/oauth/telegram/login', { guards: [critical] }, async (req, reply) => {
    await spendTelegram(req.query);
    return startSession(req, reply, await svc.telegramLogin(req.query));
  });
  declare('GET /api/oauth/telegram/bind', { guards: [critical] }, async (req) => {
    const me = caller(req);
    await spendTelegram(req.query);
    await svc.telegramBind(me, req.query);
    return ok();
  });
}
