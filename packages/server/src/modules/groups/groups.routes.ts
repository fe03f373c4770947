import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireAdmin } from '../../http/auth.js';
import { ok } from '../../http/reply.js';

/** `GET /api/group/`: the group names defined in GroupRatio (always an array, G5). */
export function groupsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/group/', { preHandler: requireAdmin(ctx) }, async () => ok(Object.keys(ctx.options.json<Record<string, number>>('GroupRatio', {}))));
}
