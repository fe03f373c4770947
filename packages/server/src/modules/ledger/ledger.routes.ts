import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { formatReconciliation, reconcile } from '../../ledger/reconcile.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'sessions' | 'users'>;

/**
 * `GET /api/ledger/check` (super admin): the reconciliation of docs/ledger.md over the whole
 * database — `data.ok`, the mismatching accounts, and the report lines `npm run ledger:check` prints.
 */
export function ledgerRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  declare('GET /api/ledger/check', {}, async (req) => {
    const fix = req.query.fix_report === 'true';
    const r = await reconcile(ctx.db.db);
    return ok({ ...r, lines: formatReconciliation(r, fix) });
  });
}
