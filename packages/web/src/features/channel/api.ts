import { api, requestEnvelope } from '../../lib/api';

/** A channel as `/api/channel/*` returns it (console-api.md §5, G5/G6); `key` is always "". */
export interface Channel {
  id: number;
  name: string;
  type: number;
  /** 1 enabled, 2 manually disabled, 3 auto-disabled (spec §4). */
  status: number;
  key: string;
  openai_organization: string;
  test_model: string;
  base_url: string;
  other: string;
  /** Comma strings. */
  models: string;
  group: string;
  model_mapping: string;
  status_code_mapping: string;
  setting: string;
  tag: string | null;
  priority: number;
  weight: number;
  auto_ban: number;
  /** Milliseconds; 0 = never tested. */
  response_time: number;
  test_time: number;
  /** USD. */
  balance: number;
  balance_updated_time: number;
  used_quota: number;
  created_time: number;
  /** JSON `{status_reason, status_time}`; meaningful only while status is 3. */
  other_info: string;
  max_input_tokens?: number;
  [key: string]: unknown;
}

export interface ChannelListQuery {
  /** 1-based in the UI; the API's `p` is 0-based (list style). */
  page: number;
  pageSize: number;
  idSort: boolean;
  tagMode: boolean;
}

export interface ChannelSearch {
  keyword: string;
  group: string;
  model: string;
}

export interface ChannelOpResult {
  success: boolean;
  message: string;
}

export interface TagEdit {
  tag: string;
  new_tag?: string;
  priority?: number;
  weight?: number;
  model_mapping?: string;
  models?: string;
  groups?: string;
}

export const channelKeys = {
  all: ['channels'] as const,
  list: (query: ChannelListQuery) => ['channels', 'list', query] as const,
  search: (search: ChannelSearch, idSort: boolean, tagMode: boolean) =>
    ['channels', 'search', search, idSort, tagMode] as const,
  detail: (id: number) => ['channels', 'detail', id] as const,
  allModels: ['channel-models'] as const,
  modelsByType: ['models-by-type'] as const,
};

const asArray = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

export async function fetchChannels(query: ChannelListQuery): Promise<Channel[]> {
  return asArray<Channel>(
    await api.get('/api/channel/', {
      p: query.page - 1,
      page_size: query.pageSize,
      id_sort: query.idSort,
      tag_mode: query.tagMode,
    }),
  );
}

export async function searchChannels(search: ChannelSearch, idSort: boolean, tagMode: boolean): Promise<Channel[]> {
  return asArray<Channel>(
    await api.get('/api/channel/search', { ...search, id_sort: idSort, tag_mode: tagMode }),
  );
}

export function fetchChannel(id: number): Promise<Channel> {
  return api.get<Channel>(`/api/channel/${id}`);
}

export function createChannel(channel: Partial<Channel> & { groups: string[] }): Promise<unknown> {
  return api.post('/api/channel/', channel);
}

export function updateChannel(channel: Partial<Channel> & { id: number; groups?: string[] }): Promise<Channel> {
  return api.put<Channel>('/api/channel/', channel);
}

/** The row controls send a partial body; the server echoes the channel (G6). */
export function patchChannel(id: number, patch: { status?: number; priority?: number; weight?: number }): Promise<Channel> {
  return api.put<Channel>('/api/channel/', { id, ...patch });
}

export function deleteChannel(id: number): Promise<unknown> {
  return api.delete(`/api/channel/${id}/`);
}

export interface TestResult extends ChannelOpResult {
  /** Seconds. */
  time: number;
}

/** Test answers put `time` next to success/message; a failed test is a result, not an exception. */
export async function testChannel(id: number, model = ''): Promise<TestResult> {
  const envelope = await requestEnvelope<unknown>('GET', `/api/channel/test/${id}`, { params: { model } });
  return { success: envelope.success, message: envelope.message, time: Number(envelope.time) || 0 };
}

export interface BalanceResult extends ChannelOpResult {
  balance: number;
}

export async function updateChannelBalance(id: number): Promise<BalanceResult> {
  const envelope = await requestEnvelope<unknown>('GET', `/api/channel/update_balance/${id}/`);
  return { success: envelope.success, message: envelope.message, balance: Number(envelope.balance) || 0 };
}

export const testAllChannels = () => api.get<unknown>('/api/channel/test');
export const updateAllBalances = () => api.get<{ updated?: number; disabled?: number }>('/api/channel/update_balance');
export const deleteDisabledChannels = () => api.delete<number>('/api/channel/disabled');
export const deleteChannels = (ids: number[]) => api.post<number>('/api/channel/batch', { ids });
/** Server-side copy: the stored key never reaches the browser, so only the server can copy it. */
export const copyChannel = (id: number, suffix: string) =>
  api.post<{ id: number }>(`/api/channel/copy/${id}`, undefined, { params: { suffix }, silent: true });
export const fixChannels = () => api.post<number>('/api/channel/fix');
export const setBatchTag = (ids: number[], tag: string) => api.post<number>('/api/channel/batch/tag', { ids, tag });
export const setTagStatus = (tag: string, enabled: boolean) =>
  api.post<unknown>(`/api/channel/tag/${enabled ? 'enabled' : 'disabled'}`, { tag });
export const editTag = (edit: TagEdit) => api.put<unknown>('/api/channel/tag', edit);


/** Every model the gateway knows (`{id}` objects; the UI uses `.id`). */
export async function fetchAllModels(): Promise<string[]> {
  return asArray<{ id?: unknown }>(await api.get('/api/channel/models'))
    .map((model) => String(model?.id ?? ''))
    .filter(Boolean);
}

/** Channel type → its default model list; cached as `channel_models` like the reference. */
export async function fetchModelsByType(): Promise<Record<string, string[]>> {
  const data = await api.get<Record<string, string[]>>('/api/models');
  const map = data && typeof data === 'object' ? data : {};
  try {
    localStorage.setItem('channel_models', JSON.stringify(map));
  } catch {
    // storage full or blocked: the cache is only an optimisation
  }
  return map;
}

export async function fetchUpstreamModels(source: { id: number } | { base_url: string; key: string }): Promise<string[]> {
  const data =
    'id' in source
      ? await api.get<string[]>(`/api/channel/fetch_models/${source.id}`)
      : await api.post<string[]>('/api/channel/fetch_models', source);
  return asArray<string>(data);
}

/** Total for a list-style pager: one extra item while the last page came back full, so "next" exists. */
export function listStyleTotal(page: number, size: number, received: number): number {
  return (page - 1) * size + received + (received >= size ? 1 : 0);
}

export function splitList(value: string | null | undefined): string[] {
  return [...new Set((value ?? '').split(',').map((item) => item.trim()).filter(Boolean))];
}
