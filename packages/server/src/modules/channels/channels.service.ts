import { ChannelStatus, channelKeyProblem, channelProxy, channelTargetKey, channelTargetProblem, channelTypeInfo, isChannelType, isRootRole, splitChannelKeys, type ChannelTargetFields } from '@modelgate/shared';
import { z } from 'zod';
import { AppError } from '../../http/errors.js';
import { nowSec } from '../../http/reply.js';
import type { OptionsService } from '../options/options.service.js';
import { assertChannelTarget } from './channel-target-guard.js';
import type { ChannelsRepository, ChannelWrite } from './channels.repository.js';
import { channelView, type ChannelView } from './channel-view.js';

const intLike = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/).transform(Number)]).transform((n) => Math.trunc(n));
const text = z.union([z.string(), z.null()]).optional();

/** The console sends the whole record back; unknown and read-only fields are ignored. */
export const channelInput = z.object({
  id: intLike.optional(),
  type: intLike.optional(),
  name: text,
  key: text,
  openai_organization: text,
  test_model: text,
  base_url: text,
  other: text,
  models: text,
  group: text,
  groups: z.array(z.string()).optional(),
  model_mapping: text,
  status_code_mapping: text,
  tag: text,
  setting: text,
  status: intLike.optional(),
  priority: intLike.optional(),
  weight: intLike.optional(),
  auto_ban: intLike.optional(),
  max_input_tokens: intLike.optional(),
});
export type ChannelInput = z.infer<typeof channelInput>;

const PARTIAL_KEYS = new Set(['id', 'status', 'priority', 'weight']);

function list(v: string | null | undefined): string[] {
  return [...new Set((v ?? '').split(',').map((s) => s.trim()).filter(Boolean))];
}

function assertJson(v: string | null | undefined, code: 'CHANNEL_MAPPING_NOT_JSON' | 'CHANNEL_STATUS_MAPPING_NOT_JSON' | 'CHANNEL_SETTING_NOT_JSON'): void {
  if (!v || !v.trim()) return;
  try {
    const parsed = JSON.parse(v) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
  } catch {
    throw new AppError(code);
  }
}

function trimUrl(v: string | null | undefined): string {
  return (v ?? '').trim().replace(/\/+$/, '');
}

/** A target that breaks its type's rule (channel-targets.ts) is refused, the rule's message in the caller's language. */
function assertTargetRules(type: number, fields: ChannelTargetFields): void {
  const problem = channelTargetProblem(type, fields);
  if (problem) throw new AppError(problem);
}

/**
 * Whether `caller` places the target as one the relay trusts: root's choice, or no choice at all
 * (no base URL and no proxy: the type's own host, or a validated region or account on the
 * provider's). Anything else a non-root admin chose is checked at every new connection.
 */
function placesTrusted(callerRole: number, fields: ChannelTargetFields): boolean {
  return isRootRole(callerRole) || (!(fields.base_url ?? '').trim() && !channelProxy(fields.setting));
}

/** A composite key (Bedrock's `AK|SK|Region`, Vertex's service-account JSON) is refused with the format it should have. */
function assertKeyFormat(type: number, key: string): void {
  const expected = channelKeyProblem(type, key);
  if (expected) throw new AppError('CHANNEL_KEY_FORMAT', 200, expected);
}

/** The type's default `other` (Azure's API version, Spark's model version), or ''. */
const defaultOther = (type: number | undefined) => (type === undefined ? '' : (channelTypeInfo(type)?.defaultOther ?? ''));

/** Channel management (spec §7 Channels; reference §6). */
export class ChannelsService {
  constructor(
    private readonly repo: ChannelsRepository,
    /** The operator's outbound allow list, for where a non-root admin may point a channel. */
    private readonly options: Pick<OptionsService, 'str'>,
  ) {}

  /** A non-root admin's new base URL or proxy may not lead into this server's network (channel-target-guard.ts). */
  private async assertReachable(fields: Pick<ChannelTargetFields, 'base_url' | 'setting'>, callerRole: number): Promise<void> {
    if (fields.base_url) await assertChannelTarget(this.options, fields.base_url, callerRole);
    if (fields.setting !== undefined) await assertChannelTarget(this.options, channelProxy(fields.setting), callerRole);
  }

  /** The configuration columns of `input`; accounting columns (used_quota, balance, …) are never taken from a client. */
  private toWrite(input: ChannelInput, existingType?: number): ChannelWrite {
    const w: ChannelWrite = {};
    const type = input.type ?? existingType;
    if (input.type !== undefined) {
      if (!isChannelType(input.type)) throw new AppError('CHANNEL_TYPE_INVALID');
      w.type = input.type;
    }
    if (input.name !== undefined) w.name = (input.name ?? '').trim();
    if (input.openai_organization !== undefined) w.openai_organization = input.openai_organization ?? '';
    if (input.test_model !== undefined) w.test_model = input.test_model ?? '';
    if (input.base_url !== undefined) w.base_url = (input.base_url ?? '').trim().replace(/\/+$/, '');
    if (input.other !== undefined) w.other = input.other ?? '';
    if (input.other !== undefined && !w.other?.trim() && defaultOther(type)) w.other = defaultOther(type);
    if (input.models !== undefined) w.models = list(input.models).join(',');
    if (input.groups && input.groups.length) w.group = list(input.groups.join(',')).join(',');
    else if (input.group !== undefined && input.group !== null) w.group = list(input.group).join(',') || 'default';
    if (input.model_mapping !== undefined) {
      assertJson(input.model_mapping, 'CHANNEL_MAPPING_NOT_JSON');
      w.model_mapping = input.model_mapping ?? '';
    }
    if (input.status_code_mapping !== undefined) {
      assertJson(input.status_code_mapping, 'CHANNEL_STATUS_MAPPING_NOT_JSON');
      w.status_code_mapping = input.status_code_mapping ?? '';
    }
    if (input.setting !== undefined) {
      assertJson(input.setting, 'CHANNEL_SETTING_NOT_JSON');
      w.setting = input.setting ?? '';
    }
    if (input.tag !== undefined) w.tag = input.tag?.trim() || null;
    if (input.status !== undefined) w.status = input.status;
    if (input.priority !== undefined) w.priority = Math.max(-999, input.priority);
    if (input.weight !== undefined) w.weight = Math.max(0, input.weight);
    if (input.auto_ban !== undefined) w.auto_ban = input.auto_ban ? 1 : 0;
    if (input.max_input_tokens !== undefined) w.max_input_tokens = Math.max(0, input.max_input_tokens);
    return w;
  }

  /** Creates one channel per key line (a Vertex JSON key stays whole); returns the new ids. */
  async create(input: ChannelInput, callerRole: number): Promise<number[]> {
    const name = (input.name ?? '').trim();
    const rawKey = (input.key ?? '').trim();
    if (!name || !rawKey) throw new AppError('CHANNEL_NAME_KEY_REQUIRED');
    if (input.type === undefined) throw new AppError('CHANNEL_TYPE_INVALID');
    const w = this.toWrite(input);
    if (!w.models) throw new AppError('CHANNEL_MODELS_REQUIRED');
    const keys = splitChannelKeys(input.type, rawKey);
    for (const k of keys) assertKeyFormat(input.type, k);
    assertTargetRules(input.type, w);
    await this.assertReachable(w, callerRole);
    const now = nowSec();
    const base = {
      ...w,
      group: w.group ?? 'default',
      status: w.status ?? ChannelStatus.Enabled,
      created_time: now,
      other_info: '',
      other: w.other ?? defaultOther(input.type),
      target_trusted: placesTrusted(callerRole, w) ? 1 : 0,
    };
    return this.repo.insertMany(keys.map((key) => ({ ...base, key })));
  }

  /**
   * Copies a channel with its stored key (which never leaves the server), under the name plus
   * `suffix`; usage counters, test results and balance start afresh. Returns the new id.
   */
  async copy(id: number, suffix: string, resetBalance: boolean): Promise<number> {
    const src = await this.repo.get(id);
    if (!src) throw new AppError('CHANNEL_NOT_FOUND');
    const { id: _id, ...rest } = src;
    const [newId] = await this.repo.insertMany([
      {
        ...rest,
        name: `${src.name}${suffix}`,
        created_time: nowSec(),
        used_quota: 0,
        response_time: 0,
        test_time: 0,
        balance: resetBalance ? 0 : src.balance,
        balance_updated_time: resetBalance ? 0 : src.balance_updated_time,
      },
    ]);
    return newId!;
  }

  /**
   * Full edit, or a partial `{id, status|priority|weight}` from the list's row controls. An empty
   * key keeps the stored one (the console never receives keys, so it sends "").
   */
  async update(input: ChannelInput, presentKeys: string[], callerRole: number): Promise<ChannelView> {
    if (input.id === undefined) throw new AppError('CHANNEL_ID_INVALID');
    const existing = await this.repo.get(input.id);
    if (!existing) throw new AppError('CHANNEL_NOT_FOUND');
    const partial = presentKeys.every((k) => PARTIAL_KEYS.has(k));
    const w = this.toWrite(input, Number(existing.type));
    const key = partial ? '' : (input.key ?? '').trim();
    const root = isRootRole(callerRole);
    const type = w.type ?? Number(existing.type);
    const after: ChannelTargetFields = { base_url: w.base_url ?? existing.base_url, other: w.other ?? existing.other, setting: w.setting ?? existing.setting };
    const moved = channelTargetKey(type, after) !== channelTargetKey(Number(existing.type), existing);
    if (moved) {
      assertTargetRules(type, after);
      // Admins never see keys; repointing a channel without a new key would hand its stored key to
      // whatever listens at the new address. Only root, who may configure keys anyway, can do that.
      if (!key && !root) throw new AppError('CHANNEL_KEY_REQUIRED_FOR_TARGET');
      await this.assertReachable(
        { base_url: w.base_url !== undefined && w.base_url !== trimUrl(existing.base_url) ? w.base_url : undefined, setting: channelProxy(after.setting) !== channelProxy(existing.setting) ? after.setting : undefined },
        callerRole,
      );
    }
    // Root's full save places the target as it stands (an older row becomes trusted again); a
    // non-root admin's move makes it one to check at every new connection.
    if (root && !partial) w.target_trusted = 1;
    else if (moved) w.target_trusted = placesTrusted(callerRole, after) ? 1 : 0;
    if (!partial) {
      if (key) assertKeyFormat(w.type ?? Number(existing.type), key);
      if (key) w.key = key;
      if (w.name !== undefined && !w.name) throw new AppError('CHANNEL_NAME_KEY_REQUIRED');
      if (w.models !== undefined && !w.models) throw new AppError('CHANNEL_MODELS_REQUIRED');
    }
    // A manual status change clears an auto-disable reason.
    if (w.status !== undefined && w.status !== Number(existing.status) && w.status !== ChannelStatus.AutoDisabled) w.other_info = '';
    const row = await this.repo.update(input.id, w);
    if (!row) throw new AppError('CHANNEL_NOT_FOUND');
    return channelView(row);
  }
}
