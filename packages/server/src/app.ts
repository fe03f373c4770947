import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from './context.js';
import { installApiErrorHandler } from './http/errors.js';
import { installGracefulClose } from './lifecycle/graceful-close.js';
import { InFlight } from './lifecycle/in-flight.js';
import { newRequestId } from './http/request-id.js';
import { installOpenApi, openApiRoute } from './http/openapi.js';
import { serializerCompiler, validatorCompiler } from './http/schema.js';
import { IpMatcher, parseIpList } from './http/ip-list.js';
import { apiRateLimitHook } from './http/console-rate-limit.js';
import { limitPageLoad } from './http/limited-page.js';
import { rateLimitHook } from './http/rate-limit.js';
import { installSecurityHeaders, TELEGRAM_SCRIPT_ORIGIN, TURNSTILE_SCRIPT_ORIGIN } from './http/security-headers.js';
import { installCsrfGuard } from './http/csrf.js';
import { installNulGuard } from './http/validate.js';
import { installJsonBodyParser } from './http/json-body.js';
import { optionsRoutes } from './modules/options/options.routes.js';
import { statusRoutes } from './modules/status/status.routes.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import { emailRoutes } from './modules/users/email.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { oauthRoutes } from './modules/oauth/oauth.routes.js';
import { installTwoFactorPolicy } from './modules/two-factor/admin-policy.js';
import { twoFactorRoutes } from './modules/two-factor/two-factor.routes.js';
import { passkeyRoutes } from './modules/passkeys/passkeys.routes.js';
import { registerLedgerJobs } from './jobs/reservations.job.js';
import { channelsBulkRoutes } from './modules/channels/channels-bulk.routes.js';
import { channelOpsRoutes } from './modules/channels/channel-ops.routes.js';
import { registerChannelMonitorJobs } from './jobs/channel-monitor.job.js';
import { registerSessionJobs } from './jobs/sessions.job.js';
import { registerLogPartitionJobs } from './jobs/log-partitions.job.js';
import { registerLogRetentionJobs } from './jobs/log-retention.job.js';
import { registerAuditRetentionJobs } from './jobs/audit-retention.job.js';
import { installAuditLog } from './modules/audit/audit-hooks.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { registerQuotaDataJobs } from './jobs/quota-data.job.js';
import { registerSharedStateJobs } from './jobs/shared-state.job.js';
import { channelsRoutes } from './modules/channels/channels.routes.js';
import { groupsRoutes } from './modules/groups/groups.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { metricsRoutes } from './metrics/metrics.routes.js';
import { ledgerRoutes } from './modules/ledger/ledger.routes.js';
import { logsRoutes } from './modules/logs/logs.routes.js';
import { dataRoutes } from './modules/data/data.routes.js';
import { pricingRoutes } from './modules/pricing/pricing.routes.js';
import { redemptionsRoutes } from './modules/redemptions/redemptions.routes.js';
import { topUpsRoutes } from './modules/topups/topups.routes.js';
import { plansRoutes } from './modules/plans/plans.routes.js';
import { registerPlanJobs } from './modules/plans/plans.job.js';
import { relayRoutes } from './relay/relay.routes.js';
import { mjRoutes } from './relay/mj/mj.routes.js';
import { sunoRoutes } from './relay/suno/suno.routes.js';
import { tasksRoutes } from './modules/tasks/tasks.routes.js';
import { registerTaskPollJobs } from './jobs/tasks-poll.job.js';
import { playgroundRoutes } from './relay/playground.routes.js';
import { videoRoutes } from './relay/video/video.routes.js';


/** Paths that belong to the API and relay: never answered with the console's index.html. */
const API_PREFIXES = ['/api/', '/v1/', '/pg/', '/mj/', '/suno/', '/assets/', '/dashboard/'];

export interface BuildOptions {
  /**
   * Tests: every answer must match its route's response schema (http/schema.ts); a mismatch is a
   * 500 naming the field, and is passed to `onResponseMismatch`.
   */
  checkResponses?: boolean;
  onResponseMismatch?: (message: string) => void;
  /** Sees every route as it is registered (tests list them: http/route-access.api.test.ts). */
  onRoute?: (route: RouteOptions) => void;
}

/** Builds the HTTP app over a context; tests call this with their own database and config. */
export async function buildApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = ctx.log;
  const app = Fastify({
    loggerInstance: logger,
    // One id per request in every log line (`reqId`); the relay answers it as X-Oneapi-Request-Id.
    genReqId: () => newRequestId(),
    routerOptions: { ignoreTrailingSlash: true },
    // `/api` and anything not given its own limit; the relay's routes set theirs (relay.routes.ts).
    bodyLimit: ctx.config.bodyLimits.api,
    trustProxy: trustProxyOption(ctx.config.trustedProxies),
    // Per-request access logs cost more than the relay's own work; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
  });
  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  await app.register(cookie);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler(opts.checkResponses ?? false, opts.onResponseMismatch));
  await installOpenApi(app, ctx.version);
  if (opts.checkResponses) {
    // Every route of the API declares its contract (http/schema.ts): one registered without is reported.
    app.addHook('onRoute', (route) => {
      const methods = [route.method].flat();
      if (methods.every((m) => m === 'HEAD') || !/^\/(api|v1|pg|mj|suno|dashboard)\//.test(route.url)) return;
      if (!route.schema?.response) opts.onResponseMismatch?.(`${methods.join(',')} ${route.url} declares no schema (add its contract to @modelgate/shared/api)`);
    });
  }
  // Before any route: shutdown waits for the handlers still running (lifecycle/graceful-close.ts).
  const inFlight = new InFlight();
  inFlight.install(app);
  // Also before any route: audited routes get their hooks as they are declared (docs/security.md#audit-log).
  installAuditLog(app, ctx);
  installApiErrorHandler(app);
  installSecurityHeaders(app, {
    formTarget: () => ctx.options.str('PayAddress'),
    scriptSources: () => [
      ...(ctx.options.bool('TurnstileCheckEnabled') ? [TURNSTILE_SCRIPT_ORIGIN] : []),
      ...(ctx.options.bool('TelegramOAuthEnabled') ? [TELEGRAM_SCRIPT_ORIGIN] : []),
    ],
  });
  installNulGuard(app);
  installCsrfGuard(app, { origins: () => [ctx.options.str('ServerAddress'), ctx.config.frontendBaseUrl] });
  installJsonBodyParser(app);
  app.addHook('onClose', async () => ctx.cluster.scheduler.stop());
  // LOG_SQL_DSN: log rows wait in the main database's outbox until this moves them; what is left at
  // the stop is moved by the next start (of any node).
  if (ctx.logShipper) {
    ctx.logShipper.start();
    app.addHook('onClose', async () => ctx.logShipper?.stop());
  }
  app.addHook('onClose', async () => ctx.quotaReminder.close());
  // Notices already noted are written before the database closes.
  app.addHook('onClose', async () => ctx.channelNotice.settled());

  const apiLimit = apiRateLimitHook({
    anonymous: ctx.config.rateLimits.globalApi,
    signedIn: ctx.config.rateLimits.globalApiUser,
    store: ctx.rateLimitStore,
    sessions: ctx.sessions,
  });
  app.addHook('onRequest', async (req, reply) => {
    if (req.url.startsWith('/api/')) {
      reply.header('Cache-Control', 'no-store');
      await apiLimit(req, reply);
    }
  });

  // Before the routes: admins without a second factor while the policy is on may only enrol (modules/two-factor/admin-policy.ts).
  installTwoFactorPolicy(app, ctx);
  healthRoutes(app, ctx);
  metricsRoutes(app, ctx);
  statusRoutes(app, ctx);
  optionsRoutes(app, ctx);
  usersRoutes(app, ctx);
  twoFactorRoutes(app, ctx);
  passkeyRoutes(app, ctx);
  oauthRoutes(app, ctx);
  emailRoutes(app, ctx);
  tokensRoutes(app, ctx);
  channelsBulkRoutes(app, ctx);
  channelOpsRoutes(app, ctx);
  channelsRoutes(app, ctx);
  groupsRoutes(app, ctx);
  logsRoutes(app, ctx);
  dataRoutes(app, ctx);
  ledgerRoutes(app, ctx);
  auditRoutes(app, ctx);
  pricingRoutes(app, ctx);
  redemptionsRoutes(app, ctx);
  topUpsRoutes(app, ctx);
  plansRoutes(app, ctx);
  tasksRoutes(app, ctx);
  openApiRoute(app);
  await relayRoutes(app, ctx);
  await mjRoutes(app, ctx);
  await sunoRoutes(app, ctx);
  await playgroundRoutes(app, ctx);
  await videoRoutes(app, ctx);
  registerLedgerJobs(app, ctx);
  registerChannelMonitorJobs(app, ctx);
  registerSessionJobs(app, ctx);
  registerLogPartitionJobs(app, ctx);
  registerLogRetentionJobs(app, ctx);
  registerAuditRetentionJobs(app, ctx);
  registerQuotaDataJobs(app, ctx);
  registerSharedStateJobs(app, ctx);
  registerTaskPollJobs(app, ctx);
  registerPlanJobs(app, ctx);
  // Registered last, so its onClose runs first (Fastify runs them in reverse order).
  installGracefulClose(app, ctx, inFlight);

  await registerConsole(app, ctx);
  return app;
}

/**
 * `req.ip` is the TCP peer unless that peer is a TRUSTED_PROXIES entry; then it is the right-most
 * X-Forwarded-For address that is not a trusted proxy itself. Trusting every peer (the reference's
 * behaviour) let any caller choose the IP that rate limits and token allow lists see.
 */
function trustProxyOption(entries: readonly string[]): false | ((address: string) => boolean) {
  if (!entries.length) return false;
  const trusted = new IpMatcher(parseIpList(entries.join(',')).ranges);
  return (address) => trusted.has(address);
}

async function registerConsole(app: FastifyInstance, ctx: Pick<AppContext, 'config' | 'rateLimitStore'>): Promise<void> {
  const dist = ctx.config.webDistDir;
  const indexPath = path.join(dist, 'index.html');
  const hasConsole = fs.existsSync(indexPath);
  if (hasConsole) {
    await app.register(fastifyStatic, {
      root: dist,
      wildcard: false,
      index: false,
      cacheControl: false,
      setHeaders(res, filePath) {
        res.setHeader('Cache-Control', filePath.endsWith('.html') ? 'no-cache' : 'public, max-age=604800');
      },
    });
  }
  const webLimit = rateLimitHook('GW', ctx.config.rateLimits.globalWeb, ctx.rateLimitStore);

  app.setNotFoundHandler(async (req, reply) => {
    const url = req.url.split('?')[0]!;
    if (API_PREFIXES.some((p) => url.startsWith(p) || `${url}/` === p)) {
      return reply.status(404).send({ error: { message: `Invalid URL (${req.method} ${url})`, type: 'invalid_request_error', param: null, code: null } });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return reply.status(404).send({ error: { message: `Invalid URL (${req.method} ${url})`, type: 'invalid_request_error', param: null, code: null } });
    }
    if (ctx.config.frontendBaseUrl) return reply.redirect(`${ctx.config.frontendBaseUrl}${req.url}`, 301);
    if (await limitPageLoad(req, reply, webLimit)) return reply;
    if (!hasConsole) {
      return reply
        .status(200)
        .type('text/plain; charset=utf-8')
        .send('ModelGate is running. The web console is not built yet: run `npm run build` and restart.');
    }
    reply.header('Cache-Control', 'no-cache');
    return reply.sendFile('index.html', { cacheControl: false });
  });
}
