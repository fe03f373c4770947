import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';

export function optionsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  declare('GET /api/option/', {}, async () => ok(ctx.options.list()));
  declare('PUT /api/option/', {}, async (req) => {
    await ctx.options.update(req.body.key, req.body.value);
    return ok();
  });
}
