import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { ok, pageParams } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { referenceStyle } from './reference-style.js';
import { stripeRoutes } from './stripe.routes.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'options' | 'sessions' | 'topUps' | 'topUpService' | 'users'>;

/** `/api/user/amount`, `/api/user/pay`, the Epay notification, Stripe (stripe.routes.ts) and the top-up order lists (topups.ts). */
export function topUpsRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const svc = ctx.topUpService;

  declare('POST /api/user/amount', {}, async (req) =>
    referenceStyle(req, () => ({ data: svc.quote(caller(req).group, req.body.amount).money.toFixed(2) })),
  );
  declare('POST /api/user/pay', {}, async (req) =>
    referenceStyle(req, async () => {
      const form = await svc.pay(caller(req), req.body.amount, req.body.payment_method);
      return { data: form.fields, url: form.url };
    }),
  );

  // Gateways that POST their notification send a form: parsed for this route only, so no other
  // `/api` route starts accepting cross-site form posts.
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    // The gateway reads plain `success` or `fail`: a notification refused before the handler
    // (a NUL, a broken body, a field of the wrong type) is a `fail` too, never the /api envelope.
    scope.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
      req.log.warn({ err: error }, 'epay notify refused: malformed notification');
      return reply.code(error.statusCode === 413 ? 413 : 200).type('text/plain; charset=utf-8').send('fail');
    });
    routeDeclarer(scope, authGuards(ctx))('GET /api/user/epay/notify', {}, async (req, reply) => {
      reply.type('text/plain; charset=utf-8');
      return svc.notify(req.query, req.log);
    });
    routeDeclarer(scope, authGuards(ctx))('POST /api/user/epay/notify', {}, async (req, reply) => {
      reply.type('text/plain; charset=utf-8');
      return svc.notify(req.body, req.log);
    });
  });

  stripeRoutes(app, ctx);

  declare('GET /api/topup/self', {}, async (req) => ok(await svc.ownOrder(caller(req).id, req.query.trade_no)));
  declare('GET /api/topup/', {}, async (req) => {
    const { page, pageSize, offset } = pageParams(req.query);
    const { items, total } = await ctx.topUps.search({ keyword: req.query.keyword, status: req.query.status, offset, limit: pageSize });
    return ok({ items, total, page, page_size: pageSize });
  });
}
