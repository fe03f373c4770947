import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { idempotency } from '../../http/idempotency.js';
import { rateLimitHook } from '../../http/rate-limit.js';
import { ok, pageParams } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'rateLimitStore' | 'redemptions' | 'redemptionsService' | 'sessions' | 'users'>;

/** `/api/redemption/*` (admin) and `POST /api/user/topup` (redeem); schemas in `@modelgate/shared/api` redemptions.ts. */
export function redemptionsRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const svc = ctx.redemptionsService;
  const once = idempotency(ctx.rateLimitStore);
  // Guessing keys is hopeless (128 bits), but a redeem is a write: keep a script from hammering it.
  const critical = rateLimitHook('CT', ctx.config.rateLimits.critical, ctx.rateLimitStore);

  declare('GET /api/redemption/', {}, async (req) => {
    const { page, pageSize, offset } = pageParams(req.query);
    const { items, total } = await ctx.redemptions.search({ offset, limit: pageSize });
    return ok({ items, total, page, page_size: pageSize });
  });
  declare('GET /api/redemption/search', {}, async (req) => {
    const { page, pageSize, offset } = pageParams(req.query);
    const { items, total } = await ctx.redemptions.search({ keyword: req.query.keyword, offset, limit: pageSize });
    return ok({ items, total, page, page_size: pageSize });
  });
  declare('GET /api/redemption/:id', {}, async (req) => ok(await svc.get(req.params.id)));
  declare('POST /api/redemption/', {}, async (req) => ok(await once(req, 'redemption', () => svc.create(caller(req).id, req.body))));
  declare('PUT /api/redemption/', {}, async (req) => ok(await svc.update(req.body, req.query.status_only)));
  declare('DELETE /api/redemption/invalid', {}, async () => ok(await svc.deleteInvalid()));
  declare('DELETE /api/redemption/:id', {}, async (req) => {
    await svc.delete(req.params.id);
    return ok();
  });

  declare('POST /api/user/topup', { guards: [critical] }, async (req) => {
    const me = caller(req);
    return ok(await svc.redeem({ id: me.id, username: me.username }, req.body.key));
  });
}
