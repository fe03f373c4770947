import { GROUP_NAME_MAX_LENGTH } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { caller, requireUser } from '../../http/auth.js';
import { listParams, nowSec, ok } from '../../http/reply.js';
import { boolLike, expiry, id, idParam, int32, line, quota, safeInt, text } from '../../http/validate.js';
import { tokenView } from './token-view.js';

// Lengths are the columns' (model_limits, allow_ips varchar(1024)); the name's own limit is the service's.
const tokenBody = z.object({
  name: line().optional(),
  remain_quota: quota.optional(),
  expired_time: expiry.optional(),
  unlimited_quota: boolLike.optional(),
  model_limits_enabled: boolLike.optional(),
  model_limits: text(1024).optional(),
  allow_ips: text(1024).optional(),
  group: line(GROUP_NAME_MAX_LENGTH).optional(),
  count: safeInt.optional(),
});

export function tokensRoutes(app: FastifyInstance, ctx: AppContext): void {
  const user = requireUser(ctx);
  const svc = ctx.tokensService;

  app.get('/api/token/', { preHandler: user }, async (req) => {
    const { offset, size } = listParams(req.query as Record<string, unknown>);
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
    const body = tokenBody.extend({ id, status: int32.optional() }).parse(req.body ?? {});
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
