import { ID_MAX, INT32_MAX, TIMESTAMP_MAX } from '@modelgate/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { caller, requireAdmin, requireUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { nowSec, ok, pageParams } from '../../http/reply.js';
import { queryInt } from '../../http/validate.js';
import { logView } from './log-view.js';
import { LogsRepository, type LogFilter } from './logs.repository.js';

function str(v: unknown): string | undefined {
  const s = typeof v === 'string' ? v.trim() : '';
  return s || undefined;
}

/** The console always sends every filter, empty ones included (`&username=&token_name=`). */
function filterFrom(req: FastifyRequest, self: boolean): LogFilter {
  const q = req.query as Record<string, unknown>;
  const f: LogFilter = {
    type: queryInt(q, 'type', 0, INT32_MAX),
    tokenName: str(q.token_name),
    modelName: str(q.model_name),
    start: queryInt(q, 'start_timestamp', 0, TIMESTAMP_MAX),
    end: queryInt(q, 'end_timestamp', 0, TIMESTAMP_MAX),
    group: str(q.group),
  };
  if (self) f.userId = caller(req).id;
  else {
    f.username = str(q.username);
    f.channel = queryInt(q, 'channel', 0, ID_MAX);
  }
  return f;
}

export function logsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const repo = new LogsRepository(ctx.db);
  const admin = requireAdmin(ctx);
  const user = requireUser(ctx);

  const list = (self: boolean) => async (req: FastifyRequest) => {
    const { page, pageSize, offset } = pageParams(req.query as Record<string, unknown>);
    const { items, total } = await repo.page(filterFrom(req, self), offset, pageSize);
    return ok({ items: items.map((r) => logView(r, !self)), total, page, page_size: pageSize });
  };
  const stat = (self: boolean) => async (req: FastifyRequest) => ok(await repo.stat(filterFrom(req, self), nowSec()));

  app.get('/api/log/', { preHandler: admin }, list(false));
  app.get('/api/log/stat', { preHandler: admin }, stat(false));
  app.get('/api/log/self', { preHandler: user }, list(true));
  app.get('/api/log/self/stat', { preHandler: user }, stat(true));
  app.delete('/api/log/', { preHandler: admin }, async (req) => {
    const ts = queryInt(req.query as Record<string, unknown>, 'target_timestamp', 0, TIMESTAMP_MAX);
    if (ts === undefined) throw new AppError('LOG_TIMESTAMP_REQUIRED');
    return ok(await repo.deleteBefore(ts));
  });
}
