import { GROUP_NAME_MAX_LENGTH } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { caller, requireAdmin, requireUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { listParams, ok } from '../../http/reply.js';
import { id, idParam, int32, line, nameList, safeInt, text } from '../../http/validate.js';
import { allBuiltinModels, modelsByType } from '../../relay/adapters/registry.js';
import { modelOwner } from '../../relay/model-owners.js';
import { channelView } from './channel-view.js';
import { channelInput } from './channels.service.js';

/**
 * What the database columns can hold, checked before channels.service's own schema (which truncates
 * numbers and knows the channel rules): integer columns, varchar widths, and the per-item widths of
 * the abilities rows the models and groups lists become (model varchar(255), group varchar(64)).
 */
const channelColumns = z.looseObject({
  id: id.optional(),
  type: int32.optional(),
  status: int32.optional(),
  weight: int32.optional(),
  auto_ban: int32.optional(),
  max_input_tokens: int32.optional(),
  priority: safeInt.optional(),
  name: line(255).nullish(),
  key: text().nullish(),
  openai_organization: line(255).nullish(),
  test_model: line(255).nullish(),
  base_url: line(1024).nullish(),
  other: text().nullish(),
  models: nameList(255).nullish(),
  group: nameList(GROUP_NAME_MAX_LENGTH, 255).nullish(),
  groups: z.array(line(GROUP_NAME_MAX_LENGTH)).optional(),
  model_mapping: text().nullish(),
  status_code_mapping: text(1024).nullish(),
  tag: line(255).nullish(),
  setting: text().nullish(),
});

function flag(v: unknown): boolean {
  return v === 'true' || v === '1' || v === true;
}

/** `/api/channel/*`, `/api/models` (spec §7 Channels). Channel keys never leave the server. */
export function channelsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const admin = requireAdmin(ctx);
  const repo = ctx.channels;
  const svc = ctx.channelsService;

  app.get('/api/channel/', { preHandler: admin }, async (req) => {
    const q = req.query as Record<string, string>;
    const { offset, size } = listParams(q as Record<string, unknown>);
    const query = { idSort: flag(q.id_sort), offset, limit: size };
    const rows = flag(q.tag_mode) ? await repo.listByTags(query) : await repo.list(query);
    return ok(rows.map(channelView));
  });
  app.get('/api/channel/search', { preHandler: admin }, async (req) => {
    const q = req.query as Record<string, string>;
    const query = { keyword: q.keyword, group: q.group, model: q.model, idSort: flag(q.id_sort) };
    const rows = flag(q.tag_mode) ? await repo.listByTags(query) : await repo.list(query);
    return ok(rows.map(channelView));
  });
  app.get('/api/channel/models', { preHandler: admin }, async () =>
    ok(allBuiltinModels().map((id) => ({ id, object: 'model', created: 1626777600, owned_by: modelOwner(id) }))),
  );
  app.get('/api/channel/:id', { preHandler: admin }, async (req) => {
    const { id } = idParam.parse(req.params);
    const row = await repo.get(id);
    if (!row) throw new AppError('CHANNEL_NOT_FOUND');
    return ok(channelView(row));
  });
  app.post('/api/channel/', { preHandler: admin }, async (req) => {
    const body = channelInput.parse(channelColumns.parse(req.body ?? {}));
    await svc.create(body);
    return ok();
  });
  // Copy keeps the stored key server-side (the reference's console re-posted a keyless record: a bug).
  app.post('/api/channel/copy/:id', { preHandler: admin }, async (req) => {
    const { id } = idParam.parse(req.params);
    const q = z.object({ suffix: line(64).optional(), reset_balance: z.string().optional() }).parse(req.query);
    const newId = await ctx.channelsService.copy(id, q.suffix ?? '_复制', q.reset_balance !== 'false');
    return ok({ id: newId });
  });
  app.put('/api/channel/', { preHandler: admin }, async (req) => {
    const raw = (req.body ?? {}) as Record<string, unknown>;
    const body = channelInput.parse(channelColumns.parse(raw));
    return ok(await svc.update(body, Object.keys(raw).filter((k) => raw[k] !== undefined), caller(req).role));
  });
  app.delete('/api/channel/:id', { preHandler: admin }, async (req) => {
    const { id } = idParam.parse(req.params);
    if (!(await repo.remove(id))) throw new AppError('CHANNEL_NOT_FOUND');
    return ok();
  });

  app.get('/api/models', { preHandler: requireUser(ctx) }, async () => ok(modelsByType()));
}
