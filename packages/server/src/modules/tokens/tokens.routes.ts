import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { idempotency } from '../../http/idempotency.js';
import { listParams, nowSec, ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { tokenView } from './token-view.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'rateLimitStore' | 'sessions' | 'tokens' | 'tokensService' | 'users'>;

/** `/api/token/*`: a user's own API keys (schemas in `@modelgate/shared/api` tokens.ts). */
export function tokensRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const svc = ctx.tokensService;
  const once = idempotency(ctx.rateLimitStore);

  declare('GET /api/token/', {}, async (req) => {
    const { offset, size } = listParams(req.query);
    const rows = await ctx.tokens.list(caller(req).id, offset, size);
    const now = nowSec();
    return ok(rows.map((r) => tokenView(r, now)));
  });
  declare('GET /api/token/search', {}, async (req) => {
    const q = req.query;
    // Strip the `sk-` prefix itself (the reference trims the characters s, k and -: a bug).
    const key = (q.token ?? '').trim().replace(/^sk-/, '');
    const rows = await ctx.tokens.search(caller(req).id, (q.keyword ?? '').trim(), key);
    const now = nowSec();
    return ok(rows.map((r) => tokenView(r, now)));
  });
  declare('GET /api/token/:id', {}, async (req) => ok(tokenView(await svc.get(caller(req), req.params.id), nowSec())));
  declare('POST /api/token/', {}, async (req) => {
    const { count, ...input } = req.body;
    const rows = await once(req, 'token', () => svc.create(caller(req), input, count ?? 1));
    const now = nowSec();
    return ok(rows.length === 1 ? tokenView(rows[0]!, now) : rows.map((r) => tokenView(r, now)));
  });
  declare('PUT /api/token/', {}, async (req) => {
    const q = req.query;
    const body = req.body;
    const me = caller(req);
    const row =
      q.status_only === 'true' || q.status_only === '1'
        ? await svc.setStatus(me, body.id, body.status ?? 0)
        : await svc.update(me, body.id, body);
    return ok(tokenView(row, nowSec()));
  });
  declare('DELETE /api/token/:id', {}, async (req) => {
    await svc.remove(caller(req), req.params.id);
    return ok();
  });
}
