import { relayLangFromHeader, VIDEO_PLATFORM, type Lang } from '@modelgate/shared';
import type { ApiRouteKey } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { AppError, localise } from '../../http/errors.js';
import { documentOnlyValidator, fastifySchema } from '../../http/schema.js';
import type { TaskRow } from '../../modules/tasks/task-store.js';
import { previewValid } from '../../modules/tasks/video-preview.js';
import { playgroundToken } from '../playground.routes.js';
import { installRelayGate } from '../relay-gate.js';
import { RelayError, localError } from '../relay-error.js';
import { relayErrorHandler } from '../relay.routes.js';
import { requestAuth, type RelayAuth } from '../token-auth.js';
import { enforceUsageLimits } from '../usage-limits.js';
import { sendVideoContent } from './video-content.js';
import { loadVideoProviders } from './video-registry.js';
import { parseOpenAIBody, parseUnifiedBody, videoError, type VideoAsk } from './video-request.js';
import { submitVideo, type VideoDeps } from './video-submit.js';
import { openAIVideoView, unifiedFetchView, unifiedSubmitView, videoUrl } from './video-views.js';

type Deps = VideoDeps & Pick<AppContext, 'rateLimitStore' | 'sessions' | 'users' | 'secrets' | 'log'>;

const UNIFIED = '/v1/video/generations';
const LIST_MAX = 100;

const langOf = (req: FastifyRequest): Lang => relayLangFromHeader(req.headers['accept-language']);
const schema = (key: ApiRouteKey) => ({ schema: fastifySchema(key) });
const raw = (req: FastifyRequest) => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));

/** The unified surface answers its errors in the reference's task envelope; OpenAI's surface as OpenAI error objects. */
function isUnified(req: FastifyRequest): boolean {
  const url = req.routeOptions.url ?? '';
  return url.startsWith(UNIFIED) || url.startsWith('/pg/');
}

function sendFailure(req: FastifyRequest, reply: FastifyReply, err: RelayError): FastifyReply {
  if (err.retryAfterSec !== undefined) reply.header('retry-after', String(err.retryAfterSec));
  if (isUnified(req)) return reply.code(err.status).send({ code: err.code ?? 'error', message: err.message, data: null });
  return reply.code(err.status).send(err.toBody());
}

function errorHandler(error: Error & { statusCode?: number }, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof RelayError) return sendFailure(req, reply, error);
  if (error instanceof AppError) return reply.code(error.httpStatus === 200 ? 400 : error.httpStatus).send({ success: false, message: localise(error, req) });
  if (isUnified(req) && (error.statusCode ?? 500) < 500) return reply.code(error.statusCode!).send({ code: 'invalid_request', message: error.message, data: null });
  return relayErrorHandler(error, req, reply);
}

/** Where this gateway is reached, for the URLs it hands out: ServerAddress, else the request's own origin. */
function baseOf(ctx: Pick<Deps, 'options'>, req: FastifyRequest): string {
  const configured = ctx.options.str('ServerAddress').trim().replace(/\/+$/, '');
  return configured || `${req.protocol}://${req.host}`;
}

/** A caller's own video task by public id; another user's id is answered as no such task. */
async function ownTask(ctx: Deps, userId: number, id: string, lang: Lang): Promise<TaskRow> {
  const row = id.length <= 191 ? await ctx.db.db.selectFrom('tasks').selectAll().where('task_id', '=', id).where('user_id', '=', userId).where('platform', '=', VIDEO_PLATFORM).executeTakeFirst() : undefined;
  if (!row) throw videoError(lang, 404, 'VIDEO_TASK_NOT_FOUND', { id: id.slice(0, 100) }, 'id');
  return row;
}

async function urlOf(ctx: Deps, req: FastifyRequest, row: TaskRow): Promise<string> {
  await ctx.relay.channels.ensure();
  const ch = ctx.relay.channels.get(Number(row.channel_id));
  const provider = ch ? (await loadVideoProviders()).get(ch.type) : undefined;
  return videoUrl(row, baseOf(ctx, req), provider?.urls);
}

/** `GET /v1/videos`: own video jobs by id, newest first (OpenAI's cursor: `after` is the last id of the previous page). */
async function listOwn(ctx: Deps, req: FastifyRequest, auth: RelayAuth, lang: Lang) {
  const q = req.query as { limit?: string; order?: string; after?: string };
  const limit = q.limit === undefined || q.limit === '' ? 20 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX) throw videoError(lang, 400, 'VIDEO_FIELD_INVALID', { field: 'limit', reason: `a whole number from 1 to ${LIST_MAX}` }, 'limit');
  if (q.order !== undefined && q.order !== 'asc' && q.order !== 'desc') throw videoError(lang, 400, 'VIDEO_FIELD_INVALID', { field: 'order', reason: 'asc or desc' }, 'order');
  const asc = q.order === 'asc';
  let sel = ctx.db.db.selectFrom('tasks').selectAll().where('user_id', '=', auth.user.id).where('platform', '=', VIDEO_PLATFORM);
  if (q.after) {
    const from = await ownTask(ctx, auth.user.id, q.after, lang);
    sel = sel.where('id', asc ? '>' : '<', from.id);
  }
  const rows = await sel.orderBy('id', asc ? 'asc' : 'desc').limit(limit + 1).execute();
  const page = rows.slice(0, limit).map(openAIVideoView);
  return { object: 'list' as const, data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: rows.length > limit };
}

/** `DELETE /v1/videos/{id}`: a finished job is removed here and, where the upstream has such a call, there (best effort). */
async function deleteOwn(ctx: Deps, req: FastifyRequest, auth: RelayAuth, lang: Lang) {
  const row = await ownTask(ctx, auth.user.id, (req.params as { id: string }).id, lang);
  if (row.progress !== '100%') throw videoError(lang, 400, 'VIDEO_DELETE_UNFINISHED');
  await ctx.relay.channels.ensure();
  const ch = ctx.relay.channels.get(Number(row.channel_id));
  const provider = ch ? (await loadVideoProviders()).get(ch.type) : undefined;
  const upstreamId = JSON.parse(row.properties || '{}').upstream_id as string | undefined;
  if (ch && provider?.remove && upstreamId) await provider.remove(ch.target, upstreamId, 15_000).catch((err: unknown) => req.log.warn({ err, task: row.task_id }, 'upstream video delete failed'));
  // Only a finished row is deleted: a poller that read it open cannot move it any more (writeIfOpen).
  await ctx.db.db.deleteFrom('tasks').where('id', '=', row.id).where('progress', '=', '100%').execute();
  return { id: row.task_id, object: 'video.deleted' as const, deleted: true };
}

/** `POST /pg/video/generations`: the console's submit, billed to the signed-in user in one of their usable groups. */
async function playgroundSubmit(ctx: Deps, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const lang = langOf(req);
  const user = await ctx.relay.auth.user(req.authUser!.id);
  if (!user) throw new AppError('NOT_LOGGED_IN', 401);
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(raw(req).toString('utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // parseUnifiedBody words it
  }
  const { group: asked, ...rest } = body;
  const group = typeof asked === 'string' && asked ? asked : user.group;
  if (!Object.hasOwn(ctx.options.usableGroups(user.group), group)) throw localError(lang, 403, 'PLAYGROUND_GROUP_FORBIDDEN', { errorCode: 'group_not_allowed', detail: group });
  const ask: VideoAsk = parseUnifiedBody(Object.keys(body).length ? Buffer.from(JSON.stringify(rest)) : raw(req), lang);
  const auth: RelayAuth = { token: playgroundToken(user.id, group), user, group, pinned: null };
  await enforceUsageLimits(ctx, req, reply, auth, lang);
  return reply.send(unifiedSubmitView(await submitVideo(ctx, req.id, auth, ask, lang)));
}

/**
 * The video surfaces (issue 34). Token routes pass the relay's gate (token, rate limit, overload,
 * usage limits, before the body is read): the reference's unified `/v1/video/generations` and
 * OpenAI's `/v1/videos`, both onto the one task model (video-submit.ts). The console submits through
 * `/pg/video/generations` with its session and previews through a signed link.
 */
export async function videoRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  await loadVideoProviders();
  const limits = ctx.config.bodyLimits;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.setValidatorCompiler(documentOnlyValidator);
    scope.setErrorHandler(errorHandler);
    scope.addHook('onRequest', (_req, reply, done) => {
      reply.header('access-control-allow-origin', '*');
      done();
    });
    installRelayGate(scope, ctx);
    const authOf = (req: FastifyRequest) => requestAuth(ctx, req, langOf(req));
    const body = { bodyLimit: limits.relayJson };

    scope.post(UNIFIED, { ...body, ...schema(`POST ${UNIFIED}`) }, async (req) => {
      const lang = langOf(req);
      const ask = parseUnifiedBody(raw(req), lang);
      return unifiedSubmitView(await submitVideo(ctx, req.id, await authOf(req), ask, lang));
    });
    scope.get(`${UNIFIED}/:task_id`, schema(`GET ${UNIFIED}/:task_id`), async (req) => {
      const auth = await authOf(req);
      const row = await ownTask(ctx, auth.user.id, (req.params as { task_id: string }).task_id, langOf(req));
      return unifiedFetchView(row, await urlOf(ctx, req, row));
    });
    scope.post('/v1/videos', { ...body, ...schema('POST /v1/videos') }, async (req) => {
      const lang = langOf(req);
      const ask = parseOpenAIBody(raw(req), String(req.headers['content-type'] ?? ''), lang);
      return openAIVideoView(await submitVideo(ctx, req.id, await authOf(req), ask, lang));
    });
    scope.get('/v1/videos', schema('GET /v1/videos'), async (req) => listOwn(ctx, req, await authOf(req), langOf(req)));
    scope.get('/v1/videos/:id', schema('GET /v1/videos/:id'), async (req) => {
      const auth = await authOf(req);
      return openAIVideoView(await ownTask(ctx, auth.user.id, (req.params as { id: string }).id, langOf(req)));
    });
    scope.delete('/v1/videos/:id', schema('DELETE /v1/videos/:id'), async (req) => deleteOwn(ctx, req, await authOf(req), langOf(req)));
    scope.get('/v1/videos/:id/content', schema('GET /v1/videos/:id/content'), async (req, reply) => {
      const lang = langOf(req);
      const auth = await authOf(req);
      const variant = (req.query as { variant?: string }).variant;
      if (variant && variant !== 'video') throw videoError(lang, 400, 'VIDEO_FIELD_INVALID', { field: 'variant', reason: 'only video is served' }, 'variant');
      return sendVideoContent(ctx, reply, await ownTask(ctx, auth.user.id, (req.params as { id: string }).id, lang), lang);
    });
  });

  // The console: the session's submit, and the preview by signed link.
  const signedIn = requireUser(ctx);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.setValidatorCompiler(documentOnlyValidator);
    scope.setErrorHandler(errorHandler);
    scope.decorateRequest('relayAuth', null);
    // Signed in before the body is read, as the chat playground is.
    const session = async (req: FastifyRequest, reply: FastifyReply) => {
      await signedIn(req, reply);
      if (req.authUser?.viaAccessToken) throw new AppError('PLAYGROUND_SESSION_ONLY', 401);
    };
    scope.post('/pg/video/generations', { bodyLimit: limits.relayJson, onRequest: session, ...schema('POST /pg/video/generations') }, (req, reply) => playgroundSubmit(ctx, req, reply));
    scope.get('/api/task/:task_id/content', schema('GET /api/task/:task_id/content'), async (req, reply) => {
      const lang = langOf(req);
      const id = (req.params as { task_id: string }).task_id;
      if (!previewValid(ctx, id, req.query)) throw videoError(lang, 404, 'VIDEO_TASK_NOT_FOUND', { id: id.slice(0, 100) });
      const row = await ctx.db.db.selectFrom('tasks').selectAll().where('task_id', '=', id).where('platform', '=', VIDEO_PLATFORM).executeTakeFirst();
      if (!row) throw videoError(lang, 404, 'VIDEO_TASK_NOT_FOUND', { id: id.slice(0, 100) });
      return sendVideoContent(ctx, reply, row, lang);
    });
  });
}
