import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { caller, requireUser } from '../../http/auth.js';
import { listParams, nowSec, ok } from '../../http/reply.js';
import { tokenView } from './token-view.js';

const intLike = z.union([z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)]);
const boolLike = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true'), z.number().transform((n) => n !== 0)]);

const tokenBody = z.object({
  name: z.string().optional(),
  remain_quota: intLike.optional(),
  expired_time: intLike.optional(),
  unlimited_quota: boolLike.optional(),
  model_limits_enabled: boolLike.optional(),
  model_limits: z.string().optional(),
  allow_ips: z.string().optional(),
  group: z.string().optional(),
  count: intLike.optional(),
});
const idParam = z.object({ id: z.string().regex(/^\d+$/, 'id must be a number').transform(Number) });

export function tokensRoutes(app: FastifyInstance, ctx: AppContext): void {
  const user = requireUser(ctx);
  const svc = ctx.tokensService;

  app.get('/api/token/', { preHandler: user }, async (req) => {
    const { offset, size } = listParams(req.query as Record<string, string>);
    const rows = await ctx.tokens.list(caller(req).id, offset, size);
    const now = nowSec();
    return ok(rows.map((r) => tokenView(r, now)));
  });
  app.get('/api/token/search', { preHandler: user }, async (req) => {
    const q = req.query as Record<string, string>;
    // Strip the `sk-` prefix itself (the reference trims the characters s, k and -: a bug).
    const key = (q.token ?? '').trim().replace(/^sk-/, '');
    const rows = await ctx.tokens.search(caller(req).id, (q.keyword ?? '').trim(), key);
    const now = nowSec();
    return ok(rows.map((r) => tokenView(r, now)));
  });
  app.get('/api/token/:id', { preHandler: user }, async (req) => {
    const { id } = idParam.parse(req.params);
    return ok(tokenView(await svc.get(caller(req), id), nowSec()));
  });
  app.post('/api/token/', { preHandler: user }, async (req) => {
    const { count, ...input } = tokenBody.parse(req.body ?? {});
    const rows = await svc.create(caller(req), input, count ?? 1);
    const now = nowSec();
    return ok(rows.length === 1 ? tokenView(rows[0]!, now) : rows.map((r) => tokenView(r, now)));
  });
  app.put('/api/token/', { preHandler: user }, async (req) => {
    const q = req.query as Record<string, string>;
    const body = tokenBody.extend({ id: intLike, status: intLike.optional() }).parse(req.body ?? {});
    const me = caller(req);
    const row =
      q.status_only === 'true' || q.status_only === '1'
        ? await svc.setStatus(me, body.id, body.status ?? 0)
        : await svc.update(me, body.id, body);
    return ok(tokenView(row, nowSec()));
  });
  app.delete('/api/token/:id', { preHandler: user }, async (req) => {
    const { id } = idParam.parse(req.params);
    await svc.remove(caller(req), id);
    return ok();
  });
}
