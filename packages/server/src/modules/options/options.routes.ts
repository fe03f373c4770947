import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { requestLang } from '../../http/errors.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'options' | 'sessions' | 'users'>;

export function optionsRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  declare('GET /api/option/', {}, async (req) => ok(ctx.options.list(requestLang(req))));
  declare('PUT /api/option/', {}, async (req) => {
    await ctx.options.update(req.body.key, req.body.value);
    return ok();
  });
}
