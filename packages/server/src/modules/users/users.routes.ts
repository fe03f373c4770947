import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { UserRow } from '../../db/schema.js';
import { authGuards, caller } from '../../http/auth.js';
import { requestLang } from '../../http/errors.js';
import { idempotency } from '../../http/idempotency.js';
import { rateLimitHook } from '../../http/rate-limit.js';
import { ok, pageParams } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { turnstileGuard } from '../../http/turnstile.js';
import { SESSION_COOKIE } from '../../http/session.js';
import { afterFirstFactor } from '../two-factor/sign-in.js';
import { loginView, userView } from './user-view.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'modelsForGroups' | 'options' | 'plans' | 'rateLimitStore' | 'sessions' | 'twoFactor' | 'users' | 'usersService'>;

/** `/api/user/*` (spec §7 Users); schemas in `@modelgate/shared/api` (auth.ts, users.ts). */
export function usersRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const critical = rateLimitHook('CT', ctx.config.rateLimits.critical, ctx.rateLimitStore);
  const turnstile = turnstileGuard(ctx);
  const svc = ctx.usersService;
  const once = idempotency(ctx.rateLimitStore);

  declare('POST /api/user/register', { guards: [critical, turnstile] }, async (req) => {
    await once(req, 'register', () => svc.register(req.body, requestLang(req)));
    return ok();
  });

  declare('POST /api/user/login', { guards: [critical, turnstile] }, async (req, reply) => {
    const body = req.body;
    const row = await svc.login(body.username, body.password);
    const defaultPassword = svc.isDefaultRootPassword(row, body.password);
    // With a second factor on, the session waits for it (modules/two-factor); else a new session now.
    const challenge = await afterFirstFactor(ctx, req, reply, row, { defaultPassword });
    if (challenge) return ok(challenge);
    return ok({ ...loginView(row), default_password: defaultPassword });
  });

  declare('GET /api/user/logout', {}, async (req, reply) => {
    await ctx.sessions.revokeCookie(req.cookies?.[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return ok();
  });

  declare('GET /api/user/groups', {}, async (req) => ok(groupsWithRatios(ctx, ctx.options.usableGroups('', requestLang(req)))));

  declare('GET /api/user/self', {}, async (req) => {
    const me = caller(req);
    // The user's own windows and running plans as meters (modules/plans): scripts read them here.
    return ok(userView(me.row, { includeSecrets: true, windows: await ctx.plans.meters(me.id) }));
  });
  declare('GET /api/user/self/groups', {}, async (req) => {
    const me = caller(req);
    return ok(groupsWithRatios(ctx, ctx.options.usableGroups(me.group, requestLang(req)), me.group));
  });
  declare('PUT /api/user/self', {}, async (req, reply) => {
    // The current-password check would otherwise let a stolen session guess the password freely.
    if (req.body.password) await critical(req, reply);
    await svc.updateSelf(caller(req), req.body);
    return ok();
  });
  declare('DELETE /api/user/self', {}, async (req, reply) => {
    await svc.deleteSelf(caller(req));
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return ok();
  });
  declare('GET /api/user/token', {}, async (req) => ok(await svc.regenerateAccessToken(caller(req))));
  declare('GET /api/user/aff', {}, async (req) => ok(await svc.affCode(caller(req))));
  declare('POST /api/user/aff_transfer', {}, async (req) => {
    await svc.affTransfer(caller(req), req.body.quota);
    return ok();
  });
  declare('GET /api/user/models', {}, async (req) => {
    const me = caller(req);
    return ok(await ctx.modelsForGroups(Object.keys(ctx.options.usableGroups(me.group))));
  });

  // --- admin ---
  /** A page of users with their second factors, read for the whole page at once (no query per user). */
  const listed = async (rows: UserRow[]) => {
    const factors = await ctx.twoFactor.summaries(rows.map((r) => r.id));
    return rows.map((r) => ({ ...userView(r), two_factor: factors.get(r.id) ?? { totp: false, passkeys: 0 } }));
  };
  declare('GET /api/user/', {}, async (req) => {
    const { page, pageSize, offset } = pageParams(req.query);
    const { items, total } = await ctx.users.search({ offset, limit: pageSize });
    return ok({ items: await listed(items), total, page, page_size: pageSize });
  });
  declare('GET /api/user/search', {}, async (req) => {
    const q = req.query;
    const { page, pageSize, offset } = pageParams(q);
    const { items, total } = await ctx.users.search({ keyword: q.keyword, group: q.group, offset, limit: pageSize });
    return ok({ items: await listed(items), total, page, page_size: pageSize });
  });
  declare('GET /api/user/:id', {}, async (req) => ok(userView(await svc.getForAdmin(caller(req), req.params.id))));
  declare('POST /api/user/', {}, async (req) => {
    await svc.createByAdmin(caller(req), req.body);
    return ok();
  });
  declare('PUT /api/user/', {}, async (req) => ok(userView(await svc.updateByAdmin(caller(req), req.body))));
  declare('POST /api/user/manage', {}, async (req) => ok(await svc.manage(caller(req), req.body.id, req.body.action)));
  declare('DELETE /api/user/:id', {}, async (req) => {
    await svc.hardDelete(caller(req), req.params.id);
    return ok();
  });
}

/** `{group: {ratio, desc}}` for the usable groups that exist in GroupRatio, the user's own first. */
function groupsWithRatios(ctx: Deps, usable: Record<string, string>, own?: string) {
  const out: Record<string, { ratio: number; desc: string }> = {};
  const names = Object.keys(usable);
  if (own && names.includes(own)) names.sort((a, b) => (a === own ? -1 : b === own ? 1 : 0));
  for (const name of names) {
    if (!ctx.options.groupExists(name)) continue;
    out[name] = { ratio: ctx.options.groupRatio(name), desc: usable[name]! };
  }
  return out;
}
