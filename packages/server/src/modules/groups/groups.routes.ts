import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'options' | 'sessions' | 'users'>;

/** `GET /api/group/`: the group names defined in GroupRatio (always an array, G5). */
export function groupsRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  declare('GET /api/group/', {}, async () => ok(Object.keys(ctx.options.json<Record<string, number>>('GroupRatio', {}))));
}
