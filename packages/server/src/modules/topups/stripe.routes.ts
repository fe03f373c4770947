import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { routeDeclarer } from '../../http/schema.js';
import { referenceStyle } from './reference-style.js';
import { StripeCheckout } from './stripe-checkout.js';
import { StripeWebhook } from './stripe-webhook.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'options' | 'sessions' | 'topUps' | 'topUpService' | 'users'>;

/** Answered like `/api/user/amount` and `/api/user/pay` (G10): a failure's text in `data` too. */
/** Stripe Checkout top-up: quote, order + session, and the signed webhook (issue 33). */
export function stripeRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const checkout = new StripeCheckout(ctx);
  const webhook = new StripeWebhook(ctx);

  declare('POST /api/user/stripe/amount', {}, async (req) =>
    referenceStyle(req, () => ({ data: checkout.quote(caller(req).group, req.body.amount).money.toFixed(2) })),
  );
  declare('POST /api/user/stripe/pay', {}, async (req) =>
    referenceStyle(req, async () => {
      const me = caller(req);
      return { data: await checkout.pay({ id: me.id, group: me.group, email: me.row.email }, req.body.amount, req.log) };
    }),
  );

  // The signature covers the exact bytes Stripe sent: this scope keeps the JSON body as a Buffer
  // (no other route sees this parser), and answers Stripe's way, never the /api envelope.
  void app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
      req.log.warn({ err: error }, 'stripe webhook refused: malformed delivery');
      return reply.code(error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500).send({ received: false });
    });
    routeDeclarer(scope, authGuards(ctx))('POST /api/stripe/webhook', {}, async (req, reply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const answer = await webhook.handle(raw, req.headers['stripe-signature'] as string | undefined, req.log);
      // The contract declares the 400 answer too (`responses`); the typed reply only knows 200.
      reply.code(answer.status as 200);
      return { received: answer.received };
    });
  });
}
