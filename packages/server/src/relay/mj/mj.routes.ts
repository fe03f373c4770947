import { relayLangFromHeader } from '@modelgate/shared';
import { MJ_RELAY_PATHS, type ApiRouteKey } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { documentOnlyValidator, fastifySchema } from '../../http/schema.js';
import { jsonShapeMessage, jsonShapeProblem, RELAY_JSON_LIMITS } from '../../http/json-shape.js';
import { mjTaskJson, type MjRow } from '../../modules/tasks/mj-store.js';
import { forwardImage, withForwardUrl } from './mj-image.js';
import { RelayError } from '../relay-error.js';
import { authenticateBeforeBody, earlyAuth } from '../early-auth.js';
import { authenticateToken, type RelayAuth } from '../token-auth.js';
import { invalid, MJ_NOT_FOUND, MJ_SYSTEM, MJ_VALIDATION, MjError } from './mj-action.js';
import { bodyTooLargeMessage } from '../../http/errors.js';
import { applySignedNotify, unsignedNotify, verifiedClaim, type NotifyClaim } from './mj-notify.js';
import { originChannel, submitMj } from './mj-submit.js';

type Deps = Pick<AppContext, 'db' | 'options' | 'relay' | 'quotaLedger' | 'config' | 'rateLimitStore' | 'secrets'>;

const SEED_TIMEOUT_MS = 30_000;
const LIST_MAX_IDS = 500;
/** A proxy's task JSON (prompt, buttons, properties) is a few KB. */
const NOTIFY_BODY_LIMIT = 256 * 1024;

/** Routes that take no API key: the image (an <img> sends none) and the notify callback (signed instead). */
const KEYLESS = new Set(['/image/:id', '/notify']);
const claims = new WeakMap<FastifyRequest, NotifyClaim>();
const pathOf = (req: FastifyRequest) => (req.routeOptions.config as { mjPath?: string } | undefined)?.mjPath ?? '';

/** The proxy's clients send the key as `mj-api-secret`; Bearer works too. */
async function mjAuth(ctx: Deps, req: FastifyRequest): Promise<RelayAuth> {
  const secret = req.headers['mj-api-secret'];
  if (!req.headers.authorization && typeof secret === 'string' && secret) req.headers.authorization = `Bearer ${secret}`;
  return authenticateToken(ctx, req, relayLangFromHeader(req.headers['accept-language']));
}

function bodyOf(req: FastifyRequest): Record<string, unknown> {
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (!raw.trim()) throw invalid('request body: a JSON object is required');
  const problem = jsonShapeProblem(req.body as Buffer, RELAY_JSON_LIMITS);
  if (problem) throw invalid(jsonShapeMessage(req, problem));
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw invalid('request body: malformed JSON');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalid('request body: a JSON object is required');
  return v as Record<string, unknown>;
}

async function answer(reply: FastifyReply, fn: () => Promise<unknown>): Promise<FastifyReply> {
  try {
    const body = await fn();
    if (reply.sent) return reply;
    return reply.code(200).send(body);
  } catch (err) {
    if (err instanceof MjError) {
      if (err.retryAfterSec !== undefined) reply.header('retry-after', String(err.retryAfterSec));
      return reply.code(err.status).send(err.body());
    }
    // A key refusal and anything unexpected: the scope's error handler answers them.
    throw err;
  }
}

/**
 * The Midjourney proxy relay (providers-china-and-tasks §8) on `/mj/*` and `/mj-{mode}/mj/*`:
 * submits go upstream (billing in mj-submit.ts); fetch and list-by-condition are answered from the
 * local store with the caller's own tasks only; notify takes the proxy's signed callback (mj-notify.ts).
 */
export async function mjRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ctx.config.bodyLimits.relayJson }, (_req, body, done) => done(null, body));
    scope.setValidatorCompiler(documentOnlyValidator);
    // Fastify's own refusals (a body over the limit, a broken request) in the proxy's envelope.
    scope.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
      if (error instanceof RelayError) return reply.code(error.status).send({ code: error.status === 401 ? 401 : 4, description: error.message, result: null });
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) req.log.error({ err: error }, 'midjourney relay failed');
      const description = status === 413 ? bodyTooLargeMessage(req) : status === 500 ? 'internal error' : error.message;
      return reply.code(status).send({ code: status === 500 ? MJ_SYSTEM : MJ_VALIDATION, description, result: null });
    });
    scope.addHook('onRequest', (_req, reply, done) => {
      reply.header('access-control-allow-origin', '*');
      done();
    });
    authenticateBeforeBody(scope, (req) => mjAuth(ctx, req), (req) => KEYLESS.has(pathOf(req)));
    // The notify callback's signature is in its URL: checked before its body is read, like a key.
    scope.addHook('preParsing', async (req, _reply, payload) => {
      if (pathOf(req) !== '/notify') return payload;
      const claim = verifiedClaim(ctx, req.query);
      if (!claim) throw unsignedNotify(relayLangFromHeader(req.headers['accept-language']));
      claims.set(req, claim);
      return payload;
    });
    for (const [path, c] of Object.entries(MJ_RELAY_PATHS)) {
      for (const prefix of ['/mj', '/mj-:mode/mj']) {
        const url = `${prefix}${path}`;
        const schema = fastifySchema(`${c.method} ${url}` as ApiRouteKey);
        const bodyLimit = path === '/notify' ? { bodyLimit: NOTIFY_BODY_LIMIT } : {};
        scope.route({ method: c.method, url, schema, config: { mjPath: path }, ...bodyLimit, handler: (req, reply) => answer(reply, () => handle(ctx, req, reply, path)) });
      }
    }
  });
}

async function handle(ctx: Deps, req: FastifyRequest, reply: FastifyReply, path: string): Promise<unknown> {
  if (path === '/image/:id') return forwardImage(ctx, req, (req.params as { id: string }).id, reply);
  if (path === '/notify') return applySignedNotify(ctx, claims.get(req)!, bodyOf(req), req.log);
  const auth = earlyAuth(req);
  const view = (row: MjRow) => withForwardUrl(ctx, mjTaskJson(row));
  const db = ctx.db.db;
  const id = (req.params as { id?: string }).id ?? '';
  const own = (mjId: string) => db.selectFrom('midjourneys').selectAll().where('mj_id', '=', mjId).where('user_id', '=', auth.user.id).executeTakeFirst();
  switch (path) {
    case '/task/:id/fetch': {
      const row = await own(id);
      if (!row) throw new MjError(404, MJ_NOT_FOUND, `task_not_found: ${id}`);
      return view(row);
    }
    case '/task/list-by-condition': {
      const ids = bodyOf(req).ids;
      if (!Array.isArray(ids) || !ids.every((v) => typeof v === 'string')) throw invalid('ids: a list of task ids is required');
      if (ids.length > LIST_MAX_IDS) throw invalid(`ids: at most ${LIST_MAX_IDS}`);
      if (!ids.length) return [];
      const rows = await db.selectFrom('midjourneys').selectAll().where('mj_id', 'in', ids as string[]).where('user_id', '=', auth.user.id).execute();
      return rows.map(view);
    }
    case '/task/:id/image-seed': {
      const row = await own(id);
      if (!row) throw new MjError(404, MJ_NOT_FOUND, `task_not_found: ${id}`);
      const { ch, adapter } = await originChannel(ctx, Number(row.channel_id));
      const r = await adapter.call(ch.target, 'GET', `/mj/task/${encodeURIComponent(id)}/image-seed`, null, SEED_TIMEOUT_MS).catch((err: unknown) => {
        throw new MjError(502, MJ_SYSTEM, `upstream request failed: ${(err as Error).message}`);
      });
      if (r.status !== 200 || !r.json || typeof r.json !== 'object') throw new MjError(502, MJ_SYSTEM, `upstream answered ${r.status}`);
      return r.json;
    }
    default:
      return submitMj(ctx, req, auth, path, bodyOf(req));
  }
}
