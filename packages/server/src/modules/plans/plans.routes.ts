import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { idempotency } from '../../http/idempotency.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { PlanPayments } from './plan-payments.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'options' | 'plans' | 'plansRepo' | 'rateLimitStore' | 'sessions' | 'topUps' | 'topUpService' | 'users'>;

/**
 * `/api/plan/*` (admins: plans, grants) and `/api/user/plan/*` (a user's own subscriptions);
 * schemas in `@modelgate/shared/api` plans.ts. A user only ever reaches their own subscriptions.
 */
export function plansRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const svc = ctx.plans;
  const once = idempotency(ctx.rateLimitStore);
  const payments = new PlanPayments(ctx);

  declare('GET /api/plan/', {}, async () => ok(await svc.listPlans()));
  declare('POST /api/plan/', {}, async (req) => ok(await svc.createPlan(req.body)));
  declare('PUT /api/plan/', {}, async (req) => {
    const { id, ...input } = req.body;
    return ok(await svc.updatePlan(id, input));
  });
  declare('DELETE /api/plan/:id', {}, async (req) => {
    await svc.deletePlan(req.params.id);
    return ok();
  });
  declare('GET /api/plan/subscriptions', {}, async (req) => ok(await svc.subscriptionsOf(req.query.user_id)));
  declare('POST /api/plan/grant', {}, async (req) => ok(await svc.grant(caller(req).id, req.body.user_id, req.body.plan_id)));
  declare('POST /api/plan/revoke', {}, async (req) => {
    await svc.cancel(0, req.body.id);
    return ok();
  });

  declare('GET /api/user/plan/available', {}, async () => ok(await svc.listPlans(true)));
  declare('GET /api/user/plan/', {}, async (req) => ok(await svc.subscriptionsOf(caller(req).id)));
  // Money moves: a repeated click (same Idempotency-Key) buys or renews once.
  declare('POST /api/user/plan/buy', {}, async (req) => ok(await once(req, 'plan-buy', () => svc.buy(caller(req).id, req.body.plan_id))));
  declare('GET /api/user/plan/payable', {}, async (req) => ok(await payments.payable(caller(req), req.query.plan_id)));
  declare('POST /api/user/plan/pay', {}, async (req) => {
    const me = caller(req);
    return ok(await once(req, 'plan-pay', () => payments.pay({ id: me.id, group: me.group, email: me.row.email }, req.body.plan_id, req.body.payment_method, req.log)));
  });
  declare('POST /api/user/plan/renew', {}, async (req) => ok(await once(req, 'plan-renew', () => svc.renew(caller(req).id, req.body.id))));
  declare('POST /api/user/plan/cancel', {}, async (req) => {
    await svc.cancel(caller(req).id, req.body.id);
    return ok();
  });
  declare('PUT /api/user/plan/settings', {}, async (req) => ok(await svc.setAutoRenew(caller(req).id, req.body.id, req.body.auto_renew)));
  declare('PUT /api/user/plan/order', {}, async (req) => {
    await svc.order(caller(req).id, req.body.ids);
    return ok();
  });
  declare('GET /api/user/windows', {}, async (req) => ok(await svc.meters(caller(req).id, { tokens: 'all' })));
}
