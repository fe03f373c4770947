import { ChannelStatus, GROUP_NAME_MAX_LENGTH } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { requireAdmin } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { ok } from '../../http/reply.js';
import { id, int32, line, nameList, safeInt, text } from '../../http/validate.js';
import type { ChannelWrite } from './channels.repository.js';

const ids = z.object({ ids: z.array(id) });
const tagBody = z.object({ tag: line(255) });
const tagEdit = z.object({
  tag: line(255),
  new_tag: line(255).nullish(),
  priority: safeInt.nullish(),
  weight: int32.nullish(),
  model_mapping: text().nullish(),
  models: nameList(255).nullish(),
  groups: nameList(GROUP_NAME_MAX_LENGTH, 255).nullish(),
});

function list(v: string): string {
  return [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean))].join(',');
}

/**
 * Bulk and tag operations (spec §7 Channels, reference §6). Admin only.
 */
export function channelsBulkRoutes(app: FastifyInstance, ctx: AppContext): void {
  const admin = requireAdmin(ctx);
  const repo = ctx.channels;

  app.delete('/api/channel/disabled', { preHandler: admin }, async () =>
    ok(await repo.removeMany(await repo.idsWhere({ statuses: [ChannelStatus.ManuallyDisabled, ChannelStatus.AutoDisabled] }))),
  );
  app.post('/api/channel/batch', { preHandler: admin }, async (req) => ok(await repo.removeMany(ids.parse(req.body).ids)));
  app.post('/api/channel/fix', { preHandler: admin }, async () => ok(await repo.fix()));
  app.post('/api/channel/batch/tag', { preHandler: admin }, async (req) => {
    const body = ids.extend({ tag: line(255).nullish() }).parse(req.body);
    return ok(await repo.updateMany(body.ids, { tag: body.tag?.trim() || null }));
  });
  for (const [path, status] of [
    ['/api/channel/tag/enabled', ChannelStatus.Enabled],
    ['/api/channel/tag/disabled', ChannelStatus.ManuallyDisabled],
  ] as const) {
    app.post(path, { preHandler: admin }, async (req) => {
      const { tag } = tagBody.parse(req.body);
      if (!tag.trim()) throw new AppError('INVALID_PARAMETER');
      await repo.updateMany(await repo.idsWhere({ tag }), { status, other_info: '' });
      return ok();
    });
  }
  app.put('/api/channel/tag', { preHandler: admin }, async (req) => {
    const b = tagEdit.parse(req.body);
    if (!b.tag.trim()) throw new AppError('INVALID_PARAMETER');
    const patch: ChannelWrite = {};
    // Empty values mean "no change"; an empty new tag dissolves the tag (spec §5).
    if (b.new_tag !== undefined && b.new_tag !== null) patch.tag = b.new_tag.trim() || null;
    if (b.priority !== undefined && b.priority !== null) patch.priority = Math.max(-999, b.priority);
    if (b.weight !== undefined && b.weight !== null) {
      if (b.weight < 0) throw new AppError('INVALID_PARAMETER');
      patch.weight = b.weight;
    }
    if (b.model_mapping) {
      try {
        JSON.parse(b.model_mapping);
      } catch {
        throw new AppError('CHANNEL_MAPPING_NOT_JSON');
      }
      patch.model_mapping = b.model_mapping;
    }
    if (b.models) patch.models = list(b.models);
    if (b.groups) patch.group = list(b.groups);
    await repo.updateMany(await repo.idsWhere({ tag: b.tag }), patch);
    return ok();
  });
}
