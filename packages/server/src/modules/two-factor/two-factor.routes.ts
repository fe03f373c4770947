import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { rateLimitHook } from '../../http/rate-limit.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { loginView } from '../users/user-view.js';
import { startSession } from './sign-in.js';

type Deps = Pick<AppContext, 'config' | 'rateLimitStore' | 'sessions' | 'twoFactor' | 'users'>;

/** `/api/user/login/2fa`, `/api/user/2fa/*` and root's reset; schemas in `@modelgate/shared/api` (two-factor.ts). */
export function twoFactorRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  // Every call that checks a code is also under CRITICAL_RATE_LIMIT per IP, on top of the per-account throttle.
  const critical = rateLimitHook('CT', ctx.config.rateLimits.critical, ctx.rateLimitStore);
  const svc = ctx.twoFactor;

  declare('POST /api/user/login/2fa', { guards: [critical] }, async (req, reply) => {
    const { row, defaultPassword } = await svc.finishLogin(req.body.flow_token, req.body.code);
    await startSession(ctx, req, reply, row);
    return ok({ ...loginView(row), default_password: defaultPassword });
  });

  declare('GET /api/user/2fa/status', {}, async (req) => ok(await svc.status(caller(req))));
  declare('POST /api/user/2fa/setup', { guards: [critical] }, async (req) => ok(await svc.setup(caller(req))));
  declare('POST /api/user/2fa/enable', { guards: [critical] }, async (req) => ok({ backup_codes: await svc.enable(caller(req), req.body.code) }));
  declare('POST /api/user/2fa/disable', { guards: [critical] }, async (req) => {
    await svc.disable(caller(req), req.body.code);
    return ok();
  });
  declare('POST /api/user/2fa/backup_codes', { guards: [critical] }, async (req) => ok({ backup_codes: await svc.regenerateBackupCodes(caller(req), req.body.code) }));
  declare('DELETE /api/user/:id/2fa', {}, async (req) => {
    await svc.resetByRoot(req.params.id);
    return ok();
  });
}
