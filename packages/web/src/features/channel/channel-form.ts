import { splitList, type Channel } from './api';
import { channelTargetProblem, channelTypeOf, splitChannelKeys, type ChannelTargetProblem } from '@modelgate/shared';

export interface ChannelFormValues {
  type: number;
  name: string;
  key: string;
  /** Create only: the key box takes one key per line and creates one channel per key. */
  batch: boolean;
  base_url: string;
  other: string;
  openai_organization: string;
  groups: string[];
  models: string[];
  model_mapping: string;
  status_code_mapping: string;
  setting: string;
  test_model: string;
  auto_ban: boolean;
  tag: string;
  priority: number | null;
  weight: number | null;
  /** A prompt longer than this goes to another channel of the model (0: no limit). */
  max_input_tokens: number | null;
}

export const DEFAULT_CHANNEL_VALUES: ChannelFormValues = {
  type: 1,
  name: '',
  key: '',
  batch: false,
  base_url: '',
  other: '',
  openai_organization: '',
  groups: ['default'],
  models: [],
  model_mapping: '',
  status_code_mapping: '',
  setting: '',
  test_model: '',
  auto_ban: true,
  tag: '',
  priority: 0,
  weight: 0,
  max_input_tokens: 0,
};

export function channelToFormValues(channel: Channel): ChannelFormValues {
  return {
    type: Number(channel.type) || 1,
    name: channel.name ?? '',
    // The server never returns keys; an empty key on save keeps the stored one.
    key: '',
    batch: false,
    base_url: channel.base_url ?? '',
    other: channel.other ?? '',
    openai_organization: channel.openai_organization ?? '',
    groups: splitList(channel.group),
    models: splitList(channel.models),
    model_mapping: channel.model_mapping ?? '',
    status_code_mapping: channel.status_code_mapping ?? '',
    setting: channel.setting ?? '',
    test_model: channel.test_model ?? '',
    auto_ban: Number(channel.auto_ban ?? 1) !== 0,
    tag: channel.tag ?? '',
    priority: Number(channel.priority) || 0,
    weight: Number(channel.weight) || 0,
    max_input_tokens: Number(channel.max_input_tokens) || 0,
  };
}

export type ChannelFormProblem =
  | 'nameKey'
  | 'groups'
  | 'models'
  | 'mapping'
  | 'statusMapping'
  | 'setting'
  | 'baseUrl'
  | 'vertexRegion'
  | 'targetBaseUrl'
  | 'targetProxy'
  | 'cloudflareAccount'
  | 'azureVersion'
  | 'sparkVersion'
  | 'geminiVersion';

/** The server's target rules (shared channel-targets.ts), said in the form before a save is sent. */
const TARGET_PROBLEMS: Record<ChannelTargetProblem, ChannelFormProblem> = {
  CHANNEL_TARGET_BASE_URL: 'targetBaseUrl',
  CHANNEL_TARGET_PROXY: 'targetProxy',
  CHANNEL_TARGET_VERTEX_REGION: 'vertexRegion',
  CHANNEL_TARGET_CLOUDFLARE_ACCOUNT: 'cloudflareAccount',
  CHANNEL_TARGET_AZURE_VERSION: 'azureVersion',
  CHANNEL_TARGET_SPARK_VERSION: 'sparkVersion',
  CHANNEL_TARGET_GEMINI_VERSION: 'geminiVersion',
};

/** JSON text fields must hold an object, or be empty. */
/**
 * One boolean flag of the setting JSON, or undefined when the text is not a JSON object (the switch
 * that edits it is then disabled rather than overwriting what the operator typed).
 */
export function settingFlag(text: string | null | undefined, key: string): boolean | undefined {
  if (!isJsonObjectText(text)) return undefined;
  const obj = text && text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
  return obj[key] === true;
}

/** The setting JSON with `key` set (on) or removed (off); other keys kept. */
export function withSettingFlag(text: string | null | undefined, key: string, on: boolean): string {
  const obj = text && text.trim() && isJsonObjectText(text) ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (on) obj[key] = true;
  else delete obj[key];
  return Object.keys(obj).length ? JSON.stringify(obj, null, 2) : '';
}

export function isJsonObjectText(text: string | null | undefined): boolean {
  if (!text || !text.trim()) return true;
  try {
    const parsed = JSON.parse(text) as unknown;
    return !!parsed && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** The integer the row and form controls send; anything unparsable counts as 0. */
export function toInt(value: unknown, min?: number): number {
  const parsed = Number.parseInt(String(value ?? ''), 10);
  const n = Number.isFinite(parsed) ? parsed : 0;
  return min === undefined ? n : Math.max(min, n);
}

export type ChannelPayload = Record<string, unknown> & { groups: string[] };

/**
 * Spec §5 channel rules; returns the body of POST (create) or PUT (edit) /api/channel/.
 * Edit sends the loaded record back with the form's fields over it, like the reference, minus the
 * status and accounting fields so a save never undoes a concurrent enable/disable.
 */
export function buildChannelPayload(
  values: ChannelFormValues,
  mode: 'create' | 'edit',
  original?: Channel,
): { problem: ChannelFormProblem } | { payload: ChannelPayload } {
  const name = (values.name ?? '').trim();
  const fields = channelTypeOf(values.type);
  const key = splitChannelKeys(values.type, values.key ?? '').join('\n');
  if (!name || (mode === 'create' && !key)) return { problem: 'nameKey' };
  const groups = [...new Set(values.groups ?? [])];
  if (groups.length === 0) return { problem: 'groups' };
  const models = [...new Set((values.models ?? []).map((model) => model.trim()).filter(Boolean))];
  if (models.length === 0) return { problem: 'models' };
  if (!isJsonObjectText(values.model_mapping)) return { problem: 'mapping' };
  if (!isJsonObjectText(values.status_code_mapping)) return { problem: 'statusMapping' };
  if (!isJsonObjectText(values.setting)) return { problem: 'setting' };
  const baseUrl = (values.base_url ?? '').trim();
  if ((fields.baseUrlField === 'azure' || fields.baseUrlField === 'custom') && !baseUrl) return { problem: 'baseUrl' };
  let other = (values.other ?? '').trim();
  if (!other) other = fields.defaultOther ?? '';

  const target = { base_url: fields.baseUrlField === 'none' ? '' : baseUrl, other: fields.other ? other : '', setting: (values.setting ?? '').trim() };
  const targetProblem = channelTargetProblem(values.type, target);
  if (targetProblem) return { problem: TARGET_PROBLEMS[targetProblem] };

  const body = {
    type: values.type,
    name,
    key,
    base_url: target.base_url,
    other: target.other,
    openai_organization: fields.organization ? (values.openai_organization ?? '').trim() : '',
    models: models.join(','),
    groups,
    group: groups.join(','),
    model_mapping: (values.model_mapping ?? '').trim(),
    status_code_mapping: (values.status_code_mapping ?? '').trim(),
    setting: target.setting,
    test_model: (values.test_model ?? '').trim(),
    auto_ban: values.auto_ban ? 1 : 0,
    tag: (values.tag ?? '').trim(),
    priority: toInt(values.priority, -999),
    weight: toInt(values.weight, 0),
    max_input_tokens: toInt(values.max_input_tokens, 0),
  };
  if (mode === 'create' || !original) return { payload: body };
  const {
    status: _status,
    other_info: _otherInfo,
    used_quota: _used,
    balance: _balance,
    balance_updated_time: _balanceTime,
    response_time: _responseTime,
    test_time: _testTime,
    created_time: _created,
    ...kept
  } = original;
  return { payload: { ...kept, ...body, id: original.id } };
}

/** Custom models typed as "a, b": trimmed; any that is already selected rejects the whole entry. */
export function addCustomModels(current: string[], input: string): { models: string[] } | { duplicate: true } | null {
  const entered = input
    .split(',')
    .map((model) => model.trim())
    .filter(Boolean);
  if (entered.length === 0) return null;
  const unique = [...new Set(entered)];
  if (unique.length !== entered.length || unique.some((model) => current.includes(model))) return { duplicate: true };
  return { models: [...current, ...unique] };
}
