import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { rateLimitHook } from '../../http/rate-limit.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { startSession } from '../two-factor/sign-in.js';
import { loginView } from '../users/user-view.js';
import { relyingParty } from './relying-party.js';

type Deps = Pick<AppContext, 'config' | 'options' | 'passkeys' | 'rateLimitStore' | 'sessions' | 'twoFactor' | 'users'>;

/** `/api/user/passkey*` and a passkey as the second factor (`/api/user/login/2fa/*`); schemas in `@modelgate/shared/api` (passkeys.ts). */
export function passkeyRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  // The sign-in ceremonies are unauthenticated: under CRITICAL_RATE_LIMIT per IP like passwords.
  const critical = rateLimitHook('CT', ctx.config.rateLimits.critical, ctx.rateLimitStore);
  const svc = ctx.passkeys;
  const rp = (req: FastifyRequest) => relyingParty(ctx.options, req);

  declare('GET /api/user/passkey', {}, async (req) => ok(await svc.list(caller(req).id)));
  declare('POST /api/user/passkey/register/options', {}, async (req) => ok(await svc.registrationOptions(caller(req), rp(req))));
  declare('POST /api/user/passkey/register', {}, async (req) => ok(await svc.register(caller(req), req.body.name, req.body.response, rp(req))));
  declare('PUT /api/user/passkey/:id', {}, async (req) => ok(await svc.rename(caller(req), req.params.id, req.body.name)));
  declare('DELETE /api/user/passkey/:id', {}, async (req) => {
    await svc.remove(caller(req), req.params.id);
    return ok();
  });

  declare('POST /api/user/passkey/login/options', { guards: [critical] }, async (req) => ok(await svc.loginOptions(rp(req))));
  // A passkey alone is a whole sign-in: no second step follows it.
  declare('POST /api/user/passkey/login', { guards: [critical] }, async (req, reply) => {
    const row = await svc.login(req.body.response, rp(req));
    await startSession(ctx, req, reply, row);
    return ok({ ...loginView(row), default_password: false });
  });

  declare('POST /api/user/login/2fa/methods', { guards: [critical] }, async (req) => ok(await ctx.twoFactor.methods(req.body.flow_token)));
  declare('POST /api/user/login/2fa/passkey/options', { guards: [critical] }, async (req) => ok(await ctx.twoFactor.passkeyOptions(req.body.flow_token, rp(req))));
  declare('POST /api/user/login/2fa/passkey', { guards: [critical] }, async (req, reply) => {
    const { row, defaultPassword } = await ctx.twoFactor.finishLoginWithPasskey(req.body.flow_token, req.body.response, rp(req));
    await startSession(ctx, req, reply, row);
    return ok({ ...loginView(row), default_password: defaultPassword });
  });
}
