import { CHANNEL_COPY_SUFFIX } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { AppError, requestLang } from '../../http/errors.js';
import { listParams, ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { allBuiltinModels, modelsByType } from '../../relay/adapters/registry.js';
import { modelOwner } from '../../relay/model-owners.js';
import { channelView } from './channel-view.js';
import { channelInput } from './channels.service.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'channels' | 'channelsService' | 'sessions' | 'users'>;

/**
 * `/api/channel/*`, `/api/models` (spec §7 Channels). Channel keys never leave the server. The
 * body schema (shared channels.ts) checks what the columns can hold; channels.service's own
 * schema then reads the record the console sends back whole, ignoring read-only fields.
 */
export function channelsRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const repo = ctx.channels;
  const svc = ctx.channelsService;

  declare('GET /api/channel/', {}, async (req) => {
    const q = req.query;
    const { offset, size } = listParams(q);
    const query = { idSort: q.id_sort, offset, limit: size };
    const rows = q.tag_mode ? await repo.listByTags(query) : await repo.list(query);
    return ok(rows.map(channelView));
  });
  declare('GET /api/channel/search', {}, async (req) => {
    const q = req.query;
    const query = { keyword: q.keyword, group: q.group, model: q.model, idSort: q.id_sort };
    const rows = q.tag_mode ? await repo.listByTags(query) : await repo.list(query);
    return ok(rows.map(channelView));
  });
  declare('GET /api/channel/models', {}, async () =>
    ok(allBuiltinModels().map((id) => ({ id, object: 'model' as const, created: 1626777600, owned_by: modelOwner(id) }))),
  );
  declare('GET /api/channel/:id', {}, async (req) => {
    const row = await repo.get(req.params.id);
    if (!row) throw new AppError('CHANNEL_NOT_FOUND');
    return ok(channelView(row));
  });
  declare('POST /api/channel/', {}, async (req) => {
    await svc.create(channelInput.parse(req.body), caller(req).role);
    return ok();
  });
  // Copy keeps the stored key server-side (the reference's console re-posted a keyless record: a bug).
  // Without a suffix the copy is named in the caller's language (`_复制` / `_copy`).
  declare('POST /api/channel/copy/:id', {}, async (req) => {
    const q = req.query;
    const newId = await ctx.channelsService.copy(req.params.id, q.suffix ?? CHANNEL_COPY_SUFFIX[requestLang(req)], q.reset_balance !== 'false');
    return ok({ id: newId });
  });
  declare('PUT /api/channel/', {}, async (req) => {
    const body = req.body;
    const present = Object.keys(body).filter((k) => body[k] !== undefined);
    return ok(await svc.update(channelInput.parse(body), present, caller(req).role));
  });
  declare('DELETE /api/channel/:id', {}, async (req) => {
    if (!(await repo.remove(req.params.id))) throw new AppError('CHANNEL_NOT_FOUND');
    return ok();
  });

  declare('GET /api/models', {}, async () => ok(modelsByType()));
}
