import { GROUP_NAME_MAX_LENGTH } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { caller, requireAdmin, requireUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { rateLimitHook } from '../../http/rate-limit.js';
import { ok, pageParams } from '../../http/reply.js';
import { turnstileGuard } from '../../http/turnstile.js';
import { id, idParam, line, quota, role, username } from '../../http/validate.js';
import { SESSION_COOKIE, sessionCookieOptions } from '../../http/session.js';
import { loginView, userView } from './user-view.js';

const str = z.string().optional();

const registerBody = z.object({ username: username.default(''), password: z.string().default(''), password2: str, email: str, verification_code: str, aff_code: str });
// Login takes a username or an email; NFKC so a name typed in full-width finds the stored spelling.
const loginBody = z.object({ username: z.string().default('').transform((s) => s.normalize('NFKC')), password: z.string().default('') });
const selfBody = z.object({ username: username.optional(), display_name: line().optional(), password: str, original_password: str });
const createBody = z.object({ username: username.optional(), password: str, display_name: line().optional(), role: role.optional() });
const updateBody = z.object({
  id,
  username: username.optional(),
  display_name: line().optional(),
  password: str,
  group: line(GROUP_NAME_MAX_LENGTH).optional(),
  email: str,
  quota: quota.optional(),
  add_quota: quota.optional(),
  role: role.optional(),
});
const manageBody = z.object({ id, action: z.enum(['promote', 'demote', 'disable', 'enable', 'delete']) });

export function usersRoutes(app: FastifyInstance, ctx: AppContext): void {
  const user = requireUser(ctx);
  const admin = requireAdmin(ctx);
  const critical = rateLimitHook('CT', ctx.config.rateLimits.critical, ctx.rateLimitStore);
  const turnstile = turnstileGuard(ctx);
  const svc = ctx.usersService;

  app.post('/api/user/register', { preHandler: [critical, turnstile] }, async (req) => {
    await svc.register(registerBody.parse(req.body ?? {}));
    return ok(undefined, '');
  });

  app.post('/api/user/login', { preHandler: [critical, turnstile] }, async (req, reply) => {
    const body = loginBody.parse(req.body ?? {});
    const row = await svc.login(body.username, body.password);
    // A new session id at every sign-in; the session this browser held before ends.
    await ctx.sessions.revokeCookie(req.cookies?.[SESSION_COOKIE]);
    const cookie = await ctx.sessions.create(row.id, { ip: req.ip, userAgent: req.headers['user-agent'] });
    reply.setCookie(SESSION_COOKIE, cookie, sessionCookieOptions(req.protocol === 'https'));
    return ok({ ...loginView(row), default_password: svc.isDefaultRootPassword(row, body.password) });
  });

  app.get('/api/user/logout', async (req, reply) => {
    await ctx.sessions.revokeCookie(req.cookies?.[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return ok();
  });

  app.get('/api/user/groups', async () => ok(groupsWithRatios(ctx, ctx.options.usableGroups(''))));

  app.get('/api/user/self', { preHandler: user }, async (req) => ok(userView(caller(req).row, { includeSecrets: true })));
  app.get('/api/user/self/groups', { preHandler: user }, async (req) => {
    const me = caller(req);
    return ok(groupsWithRatios(ctx, ctx.options.usableGroups(me.group), me.group));
  });
  app.put('/api/user/self', { preHandler: user }, async (req, reply) => {
    const body = selfBody.parse(req.body ?? {});
    // The current-password check would otherwise let a stolen session guess the password freely.
    if (body.password) await critical(req, reply);
    await svc.updateSelf(caller(req), body);
    return ok();
  });
  app.delete('/api/user/self', { preHandler: user }, async (req, reply) => {
    await svc.deleteSelf(caller(req));
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return ok();
  });
  app.get('/api/user/token', { preHandler: user }, async (req) => ok(await svc.regenerateAccessToken(caller(req))));
  app.get('/api/user/aff', { preHandler: user }, async (req) => ok(await svc.affCode(caller(req))));
  app.post('/api/user/aff_transfer', { preHandler: user }, async (req) => {
    const body = z.object({ quota }).parse(req.body ?? {});
    await svc.affTransfer(caller(req), body.quota);
    return ok();
  });
  app.get('/api/user/models', { preHandler: user }, async (req) => {
    const me = caller(req);
    return ok(await ctx.modelsForGroups(Object.keys(ctx.options.usableGroups(me.group))));
  });

  // --- admin ---
  app.get('/api/user/', { preHandler: admin }, async (req) => {
    const { page, pageSize, offset } = pageParams(req.query as Record<string, unknown>);
    const { items, total } = await ctx.users.search({ offset, limit: pageSize });
    return ok({ items: items.map((r) => userView(r)), total, page, page_size: pageSize });
  });
  app.get('/api/user/search', { preHandler: admin }, async (req) => {
    const q = req.query as Record<string, string>;
    const { page, pageSize, offset } = pageParams(q);
    const { items, total } = await ctx.users.search({ keyword: q.keyword, group: q.group, offset, limit: pageSize });
    return ok({ items: items.map((r) => userView(r)), total, page, page_size: pageSize });
  });
  app.get('/api/user/:id', { preHandler: admin }, async (req) => {
    const { id } = idParam.parse(req.params);
    return ok(userView(await svc.getForAdmin(caller(req), id)));
  });
  app.post('/api/user/', { preHandler: admin }, async (req) => {
    await svc.createByAdmin(caller(req), createBody.parse(req.body ?? {}));
    return ok();
  });
  app.put('/api/user/', { preHandler: admin }, async (req) => {
    const row = await svc.updateByAdmin(caller(req), updateBody.parse(req.body ?? {}));
    return ok(userView(row));
  });
  app.post('/api/user/manage', { preHandler: admin }, async (req) => {
    const body = manageBody.safeParse(req.body ?? {});
    if (!body.success) throw new AppError('INVALID_ACTION');
    return ok(await svc.manage(caller(req), body.data.id, body.data.action));
  });
  app.delete('/api/user/:id', { preHandler: admin }, async (req) => {
    const { id } = idParam.parse(req.params);
    await svc.hardDelete(caller(req), id);
    return ok();
  });
}

/** `{group: {ratio, desc}}` for the usable groups that exist in GroupRatio, the user's own first. */
function groupsWithRatios(ctx: AppContext, usable: Record<string, string>, own?: string) {
  const out: Record<string, { ratio: number; desc: string }> = {};
  const names = Object.keys(usable);
  if (own && names.includes(own)) names.sort((a, b) => (a === own ? -1 : b === own ? 1 : 0));
  for (const name of names) {
    if (!ctx.options.groupExists(name)) continue;
    out[name] = { ratio: ctx.options.groupRatio(name), desc: usable[name]! };
  }
  return out;
}
