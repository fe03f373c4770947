import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { rateLimitHook } from '../../http/rate-limit.js';
import { nowSec, ok, pageParams } from '../../http/reply.js';
import { fastifySchema, routeDeclarer } from '../../http/schema.js';
import { logView } from './log-view.js';
import { LogsRepository, type LogFilter } from './logs.repository.js';
import { onLogDbRepository } from './log-db-errors.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'db' | 'logDb' | 'rateLimitStore' | 'sessions' | 'tokens' | 'users'>;

/** The reference's CORS for this route: any origin may read it. */
const corsOpen = (_req: FastifyRequest, reply: FastifyReply, done: () => void) => {
  reply.header('access-control-allow-origin', '*');
  done();
};

/** The parsed query (shared logs.ts); users' own filter has no username or channel. */
interface ParsedFilter {
  type?: number;
  token_name?: string;
  model_name?: string;
  start_timestamp?: number;
  end_timestamp?: number;
  group?: string;
  username?: string;
  channel?: number;
}

function str(v: string | undefined): string | undefined {
  const s = v?.trim() ?? '';
  return s || undefined;
}

/** The console always sends every filter, empty ones included (`&username=&token_name=`). */
function filterFrom(req: FastifyRequest, q: ParsedFilter, self: boolean): LogFilter {
  const f: LogFilter = {
    type: q.type,
    tokenName: str(q.token_name),
    modelName: str(q.model_name),
    start: q.start_timestamp,
    end: q.end_timestamp,
    group: str(q.group),
  };
  if (self) f.userId = caller(req).id;
  else {
    f.username = str(q.username);
    f.channel = q.channel;
  }
  return f;
}

export function logsRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const repo = onLogDbRepository(new LogsRepository(ctx.logDb), ctx.db, ctx.logDb);

  for (const [key, self] of [
    ['GET /api/log/', false],
    ['GET /api/log/self', true],
  ] as const) {
    declare(key, {}, async (req) => {
      const { page, pageSize, offset } = pageParams(req.query);
      const { items, total, capped } = await repo.page(filterFrom(req, req.query, self), offset, pageSize);
      return ok({ items: items.map((r) => logView(r, !self)), total, ...(capped ? { total_capped: true } : {}), page, page_size: pageSize });
    });
  }
  for (const [key, self] of [
    ['GET /api/log/stat', false],
    ['GET /api/log/self/stat', true],
  ] as const) {
    declare(key, {}, async (req) => ok(await repo.stat(filterFrom(req, req.query, self), nowSec())));
  }
  for (const [key, self] of [
    ['GET /api/log/search', false],
    ['GET /api/log/self/search', true],
  ] as const) {
    declare(key, {}, async (req) => {
      const rows = await repo.search(req.query.keyword ?? '', { userId: self ? caller(req).id : undefined, now: nowSec() });
      return ok(rows.map((r) => logView(r, !self)));
    });
  }
  // Public: the key is the credential (reference: CORS open, for third-party usage pages); its
  // own rate limit per IP, so a key cannot be guessed by volume.
  const keyLimit = rateLimitHook('LK', ctx.config.rateLimits.critical, ctx.rateLimitStore);
  declare('GET /api/log/token', { onRequest: [corsOpen], guards: [keyLimit] }, async (req) => {
    const raw = (req.query.key ?? '').trim();
    if (!raw) throw new AppError('LOG_KEY_REQUIRED');
    const token = await ctx.tokens.findByKey(raw.replace(/^sk-/, ''));
    if (!token) throw new AppError('LOG_KEY_INVALID');
    const rows = await repo.byToken(Number(token.user_id), Number(token.id));
    return ok(rows.map((r) => logView(r, false)));
  });
  app.options('/api/log/token', { onRequest: [corsOpen], schema: fastifySchema('OPTIONS /api/log/token') }, async (req, reply) =>
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, OPTIONS')
      .header('access-control-allow-headers', String(req.headers['access-control-request-headers'] ?? '*'))
      .header('access-control-max-age', '86400')
      .send(),
  );
  declare('DELETE /api/log/', {}, async (req) => {
    const ts = req.query.target_timestamp;
    if (ts === undefined) throw new AppError('LOG_TIMESTAMP_REQUIRED');
    return ok(await repo.deleteBefore(ts));
  });
}
