import { relayLangFromHeader } from '@modelgate/shared';
import type { ApiRouteKey } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RelayContext } from './relay-context.js';
import { MODE_FORMAT, type RelayMode } from './adapters/types.js';
import { countMessagesTokens } from './messages-count.js';
import { modelObject } from './model-owners.js';
import { bodyLimitMb } from '../http/errors.js';
import { documentOnlyValidator, fastifySchema } from '../http/schema.js';
import { releaseTokenCounter, retainTokenCounter } from './billing/token-counter.js';
import { installRelayGate } from './relay-gate.js';
import { RelayError, localError } from './relay-error.js';
import { errorJson, routeFormat } from './relay-reply.js';
import { nativeRelayRoutes } from './relay-native.routes.js';
import { relay } from './relay.service.js';
import { installRealtimeUpgrade, realtimeRoutes } from './realtime/realtime.routes.js';
import { requestAuth, type RelayAuth } from './token-auth.js';
import { keyWindows } from './relay-windows.js';

/** Multipart uploads (audio and image files) get the larger limit; every other relay route takes JSON. */
const UPLOAD_MODES: ReadonlySet<RelayMode> = new Set(['transcriptions', 'translations', 'image-edits', 'image-variations']);

const ROUTES: Array<[string, RelayMode]> = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/moderations', 'moderations'],
  ['/v1/images/generations', 'images'],
  ['/v1/images/edits', 'image-edits'],
  ['/v1/images/variations', 'image-variations'],
  ['/v1/audio/speech', 'speech'],
  ['/v1/audio/transcriptions', 'transcriptions'],
  ['/v1/audio/translations', 'translations'],
  ['/v1/rerank', 'rerank'],
];

const NOT_IMPLEMENTED: Array<[method: 'GET' | 'POST' | 'DELETE', path: string]> = [
  ['GET', '/v1/files'],
  ['POST', '/v1/files'],
  ['GET', '/v1/files/*'],
  ['DELETE', '/v1/files/*'],
  ['GET', '/v1/fine-tunes'],
  ['POST', '/v1/fine-tunes'],
  ['GET', '/v1/fine-tunes/*'],
  ['POST', '/v1/fine-tunes/*'],
  ['DELETE', '/v1/fine-tunes/*'],
  ['DELETE', '/v1/models/:model'],
];

/** The route's declared schemas (shared relay.ts): documentation and response checks only, see below. */
const schemaOf = (method: string, path: string) => fastifySchema(`${method} ${path}` as ApiRouteKey);

function sendRelayError(req: FastifyRequest, reply: FastifyReply, err: RelayError): FastifyReply {
  return reply.code(err.status).send(errorJson(routeFormat(req), err));
}

/** Fastify's own errors on a relay route (a body over the limit, a failed handler) in the route's error format. */
export function relayErrorHandler(error: Error & { statusCode?: number }, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
  if (status === 413) {
    const lang = relayLangFromHeader(req.headers['accept-language']);
    const err = localError(lang, 413, 'BODY_TOO_LARGE', { type: 'invalid_request_error', errorCode: 'request_too_large', detail: String(bodyLimitMb(req)) });
    return reply.code(413).send(errorJson(routeFormat(req), err));
  }
  if (status >= 500) req.log.error({ err: error }, 'relay route failed');
  const err = new RelayError(status, status >= 500 ? 'new_api_error' : 'invalid_request_error', null, status >= 500 ? 'internal error' : error.message);
  return reply.code(status).send(errorJson(routeFormat(req), err));
}

/** Token-authenticated helper for the non-relay `/v1` reads (the gate has authenticated already). */
async function withToken(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, fn: (auth: RelayAuth) => Promise<unknown>): Promise<unknown> {
  try {
    return await fn(await requestAuth(ctx, req, relayLangFromHeader(req.headers['accept-language'])));
  } catch (err) {
    if (err instanceof RelayError) return sendRelayError(req, reply, err);
    throw err;
  }
}

async function availableModels(ctx: RelayContext, auth: RelayAuth): Promise<string[]> {
  if (auth.token.modelLimits) return [...auth.token.modelLimits];
  await ctx.relay.channels.ensure();
  return ctx.relay.channels.modelsFor(auth.group);
}

/**
 * The OpenAI-compatible endpoint. Bodies are taken as raw bytes (one JSON.parse in the pipeline,
 * and the bytes themselves forwarded when nothing must change); errors are OpenAI error objects.
 */
export async function relayRoutes(app: FastifyInstance, ctx: RelayContext): Promise<void> {
  // Local token counting runs in a worker pool shared by the process; the last app to close stops it.
  retainTokenCounter();
  installRealtimeUpgrade(app);
  app.addHook('onClose', () => releaseTokenCounter());
  const limits = ctx.config.bodyLimits;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    // The body schemas document the wire format: the pipeline parses the raw bytes once itself
    // (request-parse.ts checks the fields it uses), so nothing is parsed twice on the hot path.
    scope.setValidatorCompiler(documentOnlyValidator);
    scope.setErrorHandler(relayErrorHandler);
    // CORS for browser clients of the API (reference: the relay router allows all origins). A
    // callback hook: an async one costs a promise per request. Hijacked replies repeat the header.
    scope.addHook('onRequest', (_req, reply, done) => {
      reply.header('access-control-allow-origin', '*');
      done();
    });
    installRelayGate(scope, ctx);

    scope.options('/v1/*', { schema: schemaOf('OPTIONS', '/v1/*') }, async (req, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS')
        .header('access-control-allow-headers', String(req.headers['access-control-request-headers'] ?? '*'))
        .header('access-control-max-age', '86400')
        .send(),
    );
    for (const [path, mode] of ROUTES) {
      const bodyLimit = UPLOAD_MODES.has(mode) ? limits.relayAudio : limits.relayJson;
      const route = { mode, format: MODE_FORMAT[mode] };
      scope.post(path, { bodyLimit, schema: schemaOf('POST', path) }, (req, reply) => relay(ctx, req, reply, route));
    }
    scope.post('/v1/engines/:model/embeddings', { bodyLimit: limits.relayJson, schema: schemaOf('POST', '/v1/engines/:model/embeddings') }, (req, reply) =>
      relay(ctx, req, reply, { mode: 'embeddings', format: 'openai-embeddings' }, (req.params as { model: string }).model),
    );
    // Anthropic's native surface (providers-international §1.6): errors in Anthropic's shape.
    const anthropic = { relayFormat: 'anthropic-messages' as const };
    scope.post('/v1/messages', { bodyLimit: limits.relayJson, schema: schemaOf('POST', '/v1/messages'), config: anthropic }, (req, reply) =>
      relay(ctx, req, reply, { mode: 'chat', format: 'anthropic-messages' }),
    );
    scope.post('/v1/messages/count_tokens', { bodyLimit: limits.relayJson, schema: schemaOf('POST', '/v1/messages/count_tokens'), config: anthropic }, (req, reply) =>
      withToken(ctx, req, reply, (auth) => countMessagesTokens(req, auth)),
    );
    nativeRelayRoutes(scope, ctx);
    realtimeRoutes(scope, ctx);

    for (const [method, path] of NOT_IMPLEMENTED) {
      scope.route({
        method,
        url: path,
        schema: schemaOf(method, path),
        // Answered 501 whatever the body: no reason to accept more than the management API does.
        bodyLimit: limits.api,
        handler: (req, reply) =>
          withToken(ctx, req, reply, async () =>
            reply.code(501).send({ error: { message: 'API not implemented', type: 'new_api_error', param: null, code: 'api_not_implemented' } }),
          ),
      });
    }

    scope.get('/v1/models', { schema: schemaOf('GET', '/v1/models') }, (req, reply) =>
      withToken(ctx, req, reply, async (auth) => {
        const models = await availableModels(ctx, auth);
        return { object: 'list', success: true, data: models.map(modelObject) };
      }),
    );
    scope.get('/v1/models/:model', { schema: schemaOf('GET', '/v1/models/:model') }, (req, reply) =>
      withToken(ctx, req, reply, async (auth) => {
        const id = (req.params as { model: string }).model;
        if ((await availableModels(ctx, auth)).includes(id)) return modelObject(id);
        const lang = relayLangFromHeader(req.headers['accept-language']);
        const msg = `${localError(lang, 404, 'RELAY_MODEL_NOT_FOUND').message}: ${id}`;
        return reply.code(404).send({ error: { message: msg, type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
      }),
    );

    for (const prefix of ['', '/v1']) {
      const sub = `${prefix}/dashboard/billing/subscription`;
      const use = `${prefix}/dashboard/billing/usage`;
      scope.get(sub, { schema: schemaOf('GET', sub) }, (req, reply) => withToken(ctx, req, reply, (auth) => subscription(ctx, auth)));
      scope.get(use, { schema: schemaOf('GET', use) }, (req, reply) => withToken(ctx, req, reply, (auth) => usage(ctx, auth)));
    }
  });
}

/** `/dashboard/billing/subscription` (reference §1): the token's (or the user's) limit in dollars. */
async function subscription(ctx: RelayContext, auth: RelayAuth) {
  const o = ctx.options;
  let limit: number;
  let expires = 0;
  if (o.bool('DisplayTokenStatEnabled')) {
    const t = await ctx.db.db.selectFrom('tokens').select(['remain_quota', 'used_quota', 'expired_time']).where('id', '=', auth.token.id).executeTakeFirst();
    limit = Number(t?.remain_quota ?? 0) + Number(t?.used_quota ?? 0);
    expires = Number(t?.expired_time ?? -1);
    if (expires === -1) expires = 0;
  } else {
    const u = await ctx.db.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', auth.user.id).executeTakeFirst();
    limit = Number(u?.quota ?? 0) + Number(u?.used_quota ?? 0);
  }
  let amount = auth.token.unlimited && o.bool('DisplayTokenStatEnabled') ? 100_000_000 : limit;
  if (o.bool('DisplayInCurrencyEnabled') && !(auth.token.unlimited && o.bool('DisplayTokenStatEnabled'))) amount = amount / o.num('QuotaPerUnit');
  return {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: amount,
    hard_limit_usd: amount,
    system_hard_limit_usd: amount,
    access_until: expires,
    windows: await keyWindows(ctx, auth),
  };
}

/** `/dashboard/billing/usage`: used quota in cents. */
async function usage(ctx: RelayContext, auth: RelayAuth) {
  const o = ctx.options;
  let used: number;
  if (o.bool('DisplayTokenStatEnabled')) {
    const t = await ctx.db.db.selectFrom('tokens').select('used_quota').where('id', '=', auth.token.id).executeTakeFirst();
    used = Number(t?.used_quota ?? 0);
  } else {
    const u = await ctx.db.db.selectFrom('users').select('used_quota').where('id', '=', auth.user.id).executeTakeFirst();
    used = Number(u?.used_quota ?? 0);
  }
  const amount = o.bool('DisplayInCurrencyEnabled') ? used / o.num('QuotaPerUnit') : used;
  return { object: 'list', total_usage: amount * 100, windows: await keyWindows(ctx, auth) };
}
