import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { ok, pageParams } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { AuditRepository } from './audit.repository.js';
import { onLogDbRepository } from '../logs/log-db-errors.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'logDb' | 'sessions' | 'users'>;

function str(v: string | undefined): string | undefined {
  const s = v?.trim() ?? '';
  return s || undefined;
}

/**
 * `GET /api/audit/` (super admin only, shared api/audit.ts): the audit log, newest first, in the
 * paged style of the log list. Admins are refused: the log watches them, so they neither read it
 * nor learn what it caught. Nothing deletes entries but the retention job.
 */
export function auditRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const repo = onLogDbRepository(new AuditRepository(ctx.logDb, ctx.db), ctx.db, ctx.logDb);
  declare('GET /api/audit/', {}, async (req) => {
    const q = req.query;
    // The brief's `size` and the log list's `page_size` both work.
    const { page, pageSize, offset } = pageParams({ p: q.p, page_size: q.size ?? q.page_size });
    const { items, total } = await repo.page(
      {
        actor: str(q.actor),
        action: str(q.action),
        targetType: str(q.target_type),
        target: str(q.target),
        success: q.success,
        start: q.start_timestamp,
        end: q.end_timestamp,
      },
      offset,
      pageSize,
    );
    return ok({ items, total, page, page_size: pageSize });
  });
}
