import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { safeEqual } from '../crypto/safe-equal.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'metrics' | 'options'>;


/**
 * `GET /metrics` in Prometheus text format, for a scraper holding the MetricsToken option as a
 * bearer token; off (404) while that option is empty. Every other answered request is counted by
 * method, route pattern and status (relay streams are counted by the relay's own metrics).
 */
export function metricsRoutes(app: FastifyInstance, ctx: Deps): void {
  if (ctx.metrics.perWorker) {
    app.addHook('onRequest', (_req, _reply, done) => {
      ctx.metrics.requestReceived();
      done();
    });
  }
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url;
    if (route) ctx.metrics.httpAnswered(req.method, route, reply.statusCode);
  });

  app.get('/metrics', async (req, reply) => {
    const token = ctx.options.str('MetricsToken');
    reply.header('Cache-Control', 'no-store');
    if (!token) return reply.code(404).send({ error: 'metrics are disabled: set the MetricsToken option to enable GET /metrics' });
    const given = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
    if (!given || !safeEqual(given, token)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer realm="metrics"').send({ error: 'a valid bearer token (the MetricsToken option) is required' });
    }
    return reply.type(ctx.metrics.contentType).send(await ctx.metrics.text());
  });
}
