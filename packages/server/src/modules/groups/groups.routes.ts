import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';

/** `GET /api/group/`: the group names defined in GroupRatio (always an array, G5). */
export function groupsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  declare('GET /api/group/', {}, async () => ok(Object.keys(ctx.options.json<Record<string, number>>('GroupRatio', {}))));
}
