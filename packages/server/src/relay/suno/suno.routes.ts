import { ChannelStatus, relayLangFromHeader } from '@modelgate/shared';
import type { ApiRouteKey } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { documentOnlyValidator, fastifySchema } from '../../http/schema.js';
import { bodyTooLargeMessage } from '../../http/errors.js';
import { jsonShapeMessage, jsonShapeProblem, RELAY_JSON_LIMITS } from '../../http/json-shape.js';
import { taskJson } from '../../modules/tasks/task-store.js';
import { sunoTaskAdapter as kind } from '../adapters/suno/task-adapter.js';
import { chargedSubmit, payerOf, taskQuota } from '../tasks/task-charge.js';
import { RelayError } from '../relay-error.js';
import { authenticateBeforeBody, earlyAuth } from '../early-auth.js';
import { authenticateToken, type RelayAuth } from '../token-auth.js';

type Deps = Pick<AppContext, 'db' | 'options' | 'relay' | 'quotaLedger' | 'config' | 'rateLimitStore'>;

const SUBMIT_TIMEOUT_MS = 60_000;
const MUSIC_FIELDS = ['prompt', 'mv', 'title', 'tags', 'gpt_description_prompt', 'task_id', 'continue_at', 'continue_clip_id'] as const;

/** An error in Suno-API's envelope with its HTTP status (providers-china-and-tasks §9.2). */
class SunoError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Sent as `Retry-After` (a periodic limit's refill). */
    readonly retryAfterSec?: number,
  ) {
    super(message);
  }
}
const bad = (message: string) => new SunoError(400, 'invalid_request', message);

function bodyOf(req: FastifyRequest): Record<string, unknown> {
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  const problem = Buffer.isBuffer(req.body) ? jsonShapeProblem(req.body, RELAY_JSON_LIMITS) : null;
  if (problem) throw bad(jsonShapeMessage(req, problem));
  let v: unknown;
  try {
    v = raw.trim() ? JSON.parse(raw) : null;
  } catch {
    throw bad('invalid_request_body: malformed JSON');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad('invalid_request_body: a JSON object is required');
  return v as Record<string, unknown>;
}

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** `/suno/*` (providers-china-and-tasks §9): submits billed per action at acceptance; fetches answered from the local store, own tasks only. */
export async function sunoRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ctx.config.bodyLimits.relayJson }, (_req, body, done) => done(null, body));
    scope.setValidatorCompiler(documentOnlyValidator);
    // Fastify's own refusals (a body over the limit, a broken request) in Suno-API's envelope.
    scope.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
      if (error instanceof RelayError) return reply.code(error.status).send({ code: error.code ?? 'invalid_request', message: error.message, data: null });
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) req.log.error({ err: error }, 'suno relay failed');
      if (status === 413) return reply.code(413).send({ code: 'request_too_large', message: bodyTooLargeMessage(req), data: null });
      return reply.code(status).send({ code: status === 500 ? 'internal_error' : 'invalid_request', message: status === 500 ? 'internal error' : error.message, data: null });
    });
    authenticateBeforeBody(scope, (req) => authenticateToken(ctx, req, relayLangFromHeader(req.headers['accept-language'])));
    const route = (key: ApiRouteKey, fn: (req: FastifyRequest, auth: RelayAuth) => Promise<unknown>) => {
      const [method, url] = key.split(' ') as ['GET' | 'POST', string];
      scope.route({ method, url, schema: fastifySchema(key), handler: (req, reply) => answer(req, reply, fn) });
    };
    route('POST /suno/submit/:action', (req, auth) => submit(ctx, req, auth));
    route('POST /suno/fetch', async (req, auth) => {
      const ids = bodyOf(req).ids;
      if (!Array.isArray(ids) || !ids.every((v) => typeof v === 'string')) throw bad('ids: a list of task ids is required');
      if (ids.length > 500) throw bad('ids: at most 500');
      const rows = ids.length ? await ctx.db.db.selectFrom('tasks').selectAll().where('task_id', 'in', ids as string[]).where('user_id', '=', auth.user.id).execute() : [];
      return { code: 'success', message: '', data: rows.map(taskJson) };
    });
    route('GET /suno/fetch/:id', async (req, auth) => {
      const id = (req.params as { id: string }).id;
      const row = await ctx.db.db.selectFrom('tasks').selectAll().where('task_id', '=', id).where('user_id', '=', auth.user.id).executeTakeFirst();
      if (!row) throw bad(`task_not_exist: ${id}`);
      return { code: 'success', message: '', data: taskJson(row) };
    });
  });
}

async function answer(req: FastifyRequest, reply: FastifyReply, fn: (req: FastifyRequest, auth: RelayAuth) => Promise<unknown>): Promise<FastifyReply> {
  try {
    return reply.code(200).send(await fn(req, earlyAuth(req)));
  } catch (err) {
    if (err instanceof SunoError) {
      if (err.retryAfterSec !== undefined) reply.header('retry-after', String(err.retryAfterSec));
      return reply.code(err.status).send({ code: err.code, message: err.message, data: null });
    }
    // A key refusal and anything unexpected: the scope's error handler answers them.
    throw err;
  }
}

async function submit(ctx: Deps, req: FastifyRequest, auth: RelayAuth): Promise<unknown> {
  const action = str((req.params as { action: string }).action).toUpperCase();
  if (action !== 'MUSIC' && action !== 'LYRICS') throw bad('invalid_action');
  const body = bodyOf(req);
  const out: Record<string, unknown> = {};
  if (action === 'LYRICS') {
    if (!str(body.prompt)) throw bad('prompt_empty');
    out.prompt = body.prompt;
  } else {
    for (const f of MUSIC_FIELDS) if (body[f] !== undefined && body[f] !== '' && body[f] !== null) out[f] = body[f];
    out.mv = str(body.mv) || 'chirp-v3-0';
    out.make_instrumental = body.make_instrumental === true;
    if (out.continue_clip_id && !out.task_id) throw bad('continue_clip_id needs task_id');
  }
  const { model, quota } = taskQuota(ctx, kind, action, auth.group);
  if (auth.token.modelLimits && !auth.token.modelLimits.has(model)) throw new SunoError(403, 'model_not_allowed', `this token may not use model ${model}`);
  await ctx.relay.channels.ensure();
  let ch;
  if (out.task_id) {
    const origin = await ctx.db.db.selectFrom('tasks').selectAll().where('task_id', '=', String(out.task_id)).where('user_id', '=', auth.user.id).executeTakeFirst();
    if (!origin) throw bad(`task_not_exist: ${String(out.task_id)}`);
    ch = ctx.relay.channels.get(Number(origin.channel_id));
    if (!ch || ch.status !== ChannelStatus.Enabled) throw new SunoError(503, 'channel_unavailable', `the channel of task ${String(out.task_id)} is not available`);
  } else ch = auth.pinned ?? ctx.relay.channels.select(auth.group, model, new Set());
  if (!ch || !kind.types.includes(ch.type)) throw new SunoError(503, 'model_not_found', `no available channel for model ${model} in group ${auth.group}`);
  const target = ch.target;
  const { reply: env, charged } = await chargedSubmit(ctx, {
    requestId: req.id,
    payer: payerOf(auth),
    model,
    action,
    quota,
    channelId: ch.id,
    lang: relayLangFromHeader(req.headers['accept-language']),
    shortQuota: (who) => new SunoError(403, 'quota_not_enough', `quota_not_enough: ${who} cannot pay ${quota}`),
    periodLimited: (err) => new SunoError(429, err.code ?? 'period_limit_exceeded', err.message, err.retryAfterSec),
    send: async () => {
      const up = await kind.call(target, 'POST', `/suno/submit/${action}`, out, SUBMIT_TIMEOUT_MS).catch((err: unknown) => {
        throw new SunoError(502, 'fail_to_fetch_task', `upstream request failed: ${(err as Error).message}`);
      });
      const env = up.json as { code?: unknown; message?: unknown; data?: unknown } | null;
      if (up.status !== 200) throw new SunoError(up.status >= 400 ? up.status : 502, 'fail_to_fetch_task', `upstream answered ${up.status}: ${JSON.stringify(env).slice(0, 300)}`);
      if (!env || env.code !== 'success' || typeof env.data !== 'string' || !env.data) {
        throw new SunoError(500, typeof env?.code === 'string' ? env.code : 'fail_to_fetch_task', typeof env?.message === 'string' && env.message ? env.message : 'upstream did not accept the task');
      }
      return { ...env, data: env.data };
    },
    // A reply that is not an accepted task was refused in send (the reservation given back).
    accepted: () => true,
  });
  const channelId = ch.id;
  const now = Math.floor(Date.now() / 1000);
  await ctx.db.db
    .insertInto('tasks')
    .values({ created_at: now, updated_at: now, task_id: env.data, platform: kind.platform, user_id: auth.user.id, channel_id: channelId, quota: charged, action, status: 'NOT_START', fail_reason: '', submit_time: now, start_time: 0, finish_time: 0, progress: '0%', properties: '{}', data: 'null', request_id: req.id })
    .execute();
  return env;
}
