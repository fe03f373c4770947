import { ChannelStatus } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import type { ChannelWrite } from './channels.repository.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'channels' | 'sessions' | 'users'>;

function list(v: string): string {
  return [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean))].join(',');
}

/**
 * Bulk and tag operations (spec §7 Channels, reference §6). Admin only.
 */
export function channelsBulkRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const repo = ctx.channels;

  declare('DELETE /api/channel/disabled', {}, async () =>
    ok(await repo.removeMany(await repo.idsWhere({ statuses: [ChannelStatus.ManuallyDisabled, ChannelStatus.AutoDisabled] }))),
  );
  declare('POST /api/channel/batch', {}, async (req) => ok(await repo.removeMany(req.body.ids)));
  declare('POST /api/channel/fix', {}, async () => ok(await repo.fix()));
  declare('POST /api/channel/batch/tag', {}, async (req) => ok(await repo.updateMany(req.body.ids, { tag: req.body.tag?.trim() || null })));
  for (const [key, status] of [
    ['POST /api/channel/tag/enabled', ChannelStatus.Enabled],
    ['POST /api/channel/tag/disabled', ChannelStatus.ManuallyDisabled],
  ] as const) {
    declare(key, {}, async (req) => {
      const { tag } = req.body;
      if (!tag.trim()) throw new AppError('INVALID_PARAMETER');
      await repo.updateMany(await repo.idsWhere({ tag }), { status, other_info: '' });
      return ok();
    });
  }
  declare('PUT /api/channel/tag', {}, async (req) => {
    const b = req.body;
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
