/**
 * Channels and their abilities (the group × model rows channel selection reads). A channel whose
 * type ModelGate does not know is not imported, nor are its abilities: ModelGate has no adapter to
 * send its requests with. Abilities are copied as new-api kept them (enabled, priority, weight,
 * tag); those of channels new-api had already deleted (its "delete disabled" left them behind) are
 * reported and dropped.
 */
import { channelTypeOf, isChannelType } from '@modelgate/shared';
import type { Insertable } from 'kysely';
import { CHANNEL_KEY_PURPOSE } from '../crypto/secret-box.js';
import type { AbilitiesTable } from '../db/schema.js';
import { copyById, sameColumns, type ImportContext, type Mapped } from './copy.js';
import { presentColumns } from './source-schema.js';
import { flag, float, int, optText, RowError, text, type Row } from './values.js';

export async function importChannels(ctx: ImportContext): Promise<void> {
  await copyById(ctx, {
    table: 'channels',
    columns: presentColumns(ctx.source, 'channels'),
    track: ctx.channels,
    map(row): Mapped<'channels'> | null {
      const id = int(row, 'id');
      const type = int(row, 'type');
      if (!isChannelType(type)) {
        ctx.report.issue('channels', `#${id}`, `type ${type} (${text(row, 'name')}) is not a channel type ModelGate knows: not imported, nor its abilities`);
        return null;
      }
      const key = text(row, 'key');
      if (!key.trim()) throw new RowError('key is empty');
      return {
        id,
        type,
        // new-api keeps keys in plaintext; ModelGate stores them sealed.
        key: ctx.secrets.sealIfPlain(CHANNEL_KEY_PURPOSE, key),
        openai_organization: optText(row, 'openai_organization', 255),
        test_model: optText(row, 'test_model', 255),
        status: int(row, 'status', 1),
        name: text(row, 'name', 255),
        weight: int(row, 'weight'),
        created_time: int(row, 'created_time'),
        test_time: int(row, 'test_time'),
        response_time: int(row, 'response_time'),
        base_url: optText(row, 'base_url', 1024),
        other: text(row, 'other'),
        balance: float(row, 'balance'),
        balance_updated_time: int(row, 'balance_updated_time'),
        models: text(row, 'models'),
        group: text(row, 'group', 255).trim() || 'default',
        used_quota: int(row, 'used_quota'),
        model_mapping: optText(row, 'model_mapping'),
        status_code_mapping: optText(row, 'status_code_mapping', 1024),
        priority: int(row, 'priority'),
        auto_ban: int(row, 'auto_ban', 1),
        other_info: text(row, 'other_info'),
        tag: optText(row, 'tag', 255),
        setting: optText(row, 'setting'),
        max_input_tokens: int(row, 'max_input_tokens'),
        // The operator runs the import: where these channels point is the operator's placing, like root's.
        target_trusted: 1,
      };
    },
    ours: (t, rows) => sameColumns(t, 'channels', rows, ['type', 'name', 'created_time']),
    describe: (r) => `channel "${r.name}" of type ${channelTypeOf(Number(r.type)).name}`,
  });
}

type NewAbility = Insertable<AbilitiesTable>;
const abilityKey = (a: { group: unknown; model: unknown; channel_id: unknown }) => `${Number(a.channel_id)}\u0000${String(a.group)}\u0000${String(a.model)}`;

export async function importAbilities(ctx: ImportContext): Promise<void> {
  const counts = ctx.report.counts('abilities');
  const rows = await ctx.source.all('abilities', presentColumns(ctx.source, 'abilities'), ['channel_id', 'group', 'model']);
  counts.source = rows.length;
  const sourceChannels = new Set((await ctx.source.all('channels', ['id'], ['id'])).map((r) => Number(r.id)));
  const orphans = new Map<number, number>();
  const mapped: NewAbility[] = [];
  for (const row of rows) {
    const channelId = Number(row.channel_id);
    if (!ctx.channels.has(channelId)) {
      // Abilities of a channel skipped above were reported with it; the others have no channel at all.
      if (!sourceChannels.has(channelId)) orphans.set(channelId, (orphans.get(channelId) ?? 0) + 1);
      counts.skipped++;
      continue;
    }
    try {
      mapped.push(mapAbility(row));
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      ctx.report.issue('abilities', `${String(row.group)}/${String(row.model)}/#${channelId}`, `${err.message}: not imported`);
      counts.skipped++;
    }
  }
  for (const [channelId, n] of orphans) {
    ctx.report.issue('abilities', `channel #${channelId}`, `${n} row(s) of a channel new-api no longer has: not imported`);
  }
  for (let i = 0; i < mapped.length; i += 200) {
    const chunk = mapped.slice(i, i + 200);
    const ids = [...new Set(chunk.map((a) => a.channel_id))];
    const existing = new Set((await ctx.t.selectFrom('abilities').select(['group', 'model', 'channel_id']).where('channel_id', 'in', ids).execute()).map(abilityKey));
    const fresh = chunk.filter((a) => !existing.has(abilityKey(a)));
    counts.present += chunk.length - fresh.length;
    counts.imported += fresh.length;
    if (ctx.write && fresh.length) await ctx.t.insertInto('abilities').values(fresh).execute();
  }
}

function mapAbility(row: Row): NewAbility {
  const group = text(row, 'group', 64);
  const model = text(row, 'model', 255);
  if (!group || !model) throw new RowError('group or model is empty');
  return {
    group,
    model,
    channel_id: int(row, 'channel_id'),
    enabled: flag(row, 'enabled'),
    priority: int(row, 'priority'),
    weight: int(row, 'weight'),
    tag: optText(row, 'tag', 255),
  };
}
