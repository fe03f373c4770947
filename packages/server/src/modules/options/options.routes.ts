import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { requireRoot } from '../../http/auth.js';
import { ok } from '../../http/reply.js';

const putBody = z.object({ key: z.string().min(1), value: z.unknown() });

export function optionsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const root = requireRoot(ctx);
  app.get('/api/option/', { preHandler: root }, async () => ok(ctx.options.list()));
  app.put('/api/option/', { preHandler: root }, async (req) => {
    const body = putBody.parse(req.body);
    await ctx.options.update(body.key, body.value);
    return ok();
  });
}
