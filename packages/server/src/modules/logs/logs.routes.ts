import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { nowSec, ok, pageParams } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { logView } from './log-view.js';
import { LogsRepository, type LogFilter } from './logs.repository.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'sessions' | 'users'>;

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
  const repo = new LogsRepository(ctx.db);

  for (const [key, self] of [
    ['GET /api/log/', false],
    ['GET /api/log/self', true],
  ] as const) {
    declare(key, {}, async (req) => {
      const { page, pageSize, offset } = pageParams(req.query);
      const { items, total } = await repo.page(filterFrom(req, req.query, self), offset, pageSize);
      return ok({ items: items.map((r) => logView(r, !self)), total, page, page_size: pageSize });
    });
  }
  for (const [key, self] of [
    ['GET /api/log/stat', false],
    ['GET /api/log/self/stat', true],
  ] as const) {
    declare(key, {}, async (req) => ok(await repo.stat(filterFrom(req, req.query, self), nowSec())));
  }
  declare('DELETE /api/log/', {}, async (req) => {
    const ts = req.query.target_timestamp;
    if (ts === undefined) throw new AppError('LOG_TIMESTAMP_REQUIRED');
    return ok(await repo.deleteBefore(ts));
  });
}
