import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { nowSec, ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { QuotaDataRepository } from './quota-data.repository.js';
import { onLogDbRepository } from '../logs/log-db-errors.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'logDb' | 'sessions' | 'users'>;

/** The reference refuses a user's own query over more than a month. */
const SELF_SPAN_MAX_SEC = 30 * 86400;

/** Missing bounds: the last week up to the current hour. */
function range(q: { start_timestamp?: number; end_timestamp?: number }): { start: number; end: number } {
  const end = q.end_timestamp || nowSec() + 3600;
  const start = q.start_timestamp || end - 7 * 86400;
  return { start, end };
}

/** The data dashboard (`/detail`, console-api.md §5): hourly usage per model from quota_data. */
export function dataRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const repo = onLogDbRepository(new QuotaDataRepository(ctx.logDb), ctx.db, ctx.logDb);
  declare('GET /api/data/', {}, async (req) => {
    const username = req.query.username?.trim() || undefined;
    return ok(await repo.query({ ...range(req.query), username }));
  });
  declare('GET /api/data/self', {}, async (req) => {
    const r = range(req.query);
    if (r.end - r.start > SELF_SPAN_MAX_SEC) throw new AppError('DATA_SPAN_TOO_LONG');
    return ok(await repo.query({ ...r, userId: caller(req).id }));
  });
}
