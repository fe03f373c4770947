import type { Channel, ChannelBalanceResult, ChannelBody, ChannelTestResult, TagEditBody } from '@modelgate/shared/api';
import { call, callEnvelope } from '../../lib/api';

export type { Channel };
export type TagEdit = TagEditBody;

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

export const channelKeys = {
  all: ['channels'] as const,
  list: (query: ChannelListQuery) => ['channels', 'list', query] as const,
  search: (search: ChannelSearch, idSort: boolean, tagMode: boolean) =>
    ['channels', 'search', search, idSort, tagMode] as const,
  detail: (id: number) => ['channels', 'detail', id] as const,
  allModels: ['channel-models'] as const,
  modelsByType: ['models-by-type'] as const,
};

const asArray = <T>(value: T[] | null | undefined): T[] => (Array.isArray(value) ? value : []);

/** `silent`: the caller shows its own message (the toolbar's refresh says "refresh failed"). */
export async function fetchChannels(query: ChannelListQuery, silent = false): Promise<Channel[]> {
  return asArray(
    await call('GET /api/channel/', {
      query: { p: query.page - 1, page_size: query.pageSize, id_sort: query.idSort, tag_mode: query.tagMode },
      silent,
    }),
  );
}

export async function searchChannels(search: ChannelSearch, idSort: boolean, tagMode: boolean, silent = false): Promise<Channel[]> {
  return asArray(await call('GET /api/channel/search', { query: { ...search, id_sort: idSort, tag_mode: tagMode }, silent }));
}

export function fetchChannel(id: number): Promise<Channel> {
  return call('GET /api/channel/:id', { params: { id } });
}

export function createChannel(channel: ChannelBody): Promise<unknown> {
  return call('POST /api/channel/', { body: channel });
}

export function updateChannel(channel: ChannelBody & { id: number }): Promise<Channel> {
  return call('PUT /api/channel/', { body: channel });
}

/** The row controls send a partial body; the server echoes the channel (G6). */
export function patchChannel(id: number, patch: { status?: number; priority?: number; weight?: number }): Promise<Channel> {
  return call('PUT /api/channel/', { body: { id, ...patch } });
}

export function deleteChannel(id: number): Promise<unknown> {
  return call('DELETE /api/channel/:id', { params: { id }, slash: true });
}

export type TestResult = ChannelTestResult;

/** Test answers put `time` next to success/message; a failed test is a result, not an exception. */
export async function testChannel(id: number, model = ''): Promise<TestResult> {
  const envelope = await callEnvelope('GET /api/channel/test/:id', { params: { id }, query: { model } });
  return { success: envelope.success, message: envelope.message, time: 'time' in envelope ? Number(envelope.time) || 0 : 0 };
}

export type BalanceResult = ChannelBalanceResult;

export async function updateChannelBalance(id: number): Promise<BalanceResult> {
  // Silent: a request that fails outright is reported as "refresh failed" by the caller.
  const envelope = await callEnvelope('GET /api/channel/update_balance/:id', { params: { id }, slash: true, silent: true });
  return { success: envelope.success, message: envelope.message, balance: 'balance' in envelope ? Number(envelope.balance) || 0 : 0 };
}

export const testAllChannels = () => call('GET /api/channel/test');
export const updateAllBalances = () => call('GET /api/channel/update_balance');
export const deleteDisabledChannels = () => call('DELETE /api/channel/disabled');
export const deleteChannels = (ids: number[]) => call('POST /api/channel/batch', { body: { ids } });
/** Server-side copy: the stored key never reaches the browser, so only the server can copy it. */
export const copyChannel = (id: number, suffix: string) => call('POST /api/channel/copy/:id', { params: { id }, query: { suffix }, silent: true });
export const fixChannels = () => call('POST /api/channel/fix');
export const setBatchTag = (ids: number[], tag: string) => call('POST /api/channel/batch/tag', { body: { ids, tag } });
export const setTagStatus = (tag: string, enabled: boolean) =>
  enabled ? call('POST /api/channel/tag/enabled', { body: { tag } }) : call('POST /api/channel/tag/disabled', { body: { tag } });
export const editTag = (edit: TagEdit) => call('PUT /api/channel/tag', { body: edit });

/** Every model the gateway knows (`{id}` objects; the UI uses `.id`). */
export async function fetchAllModels(): Promise<string[]> {
  return asArray(await call('GET /api/channel/models'))
    .map((model) => String(model?.id ?? ''))
    .filter(Boolean);
}

/** Channel type → its default model list; cached as `channel_models` like the reference. */
export async function fetchModelsByType(): Promise<Record<string, string[]>> {
  const data = await call('GET /api/models');
  const map = data && typeof data === 'object' ? data : {};
  try {
    localStorage.setItem('channel_models', JSON.stringify(map));
  } catch {
    // storage full or blocked: the cache is only an optimisation
  }
  return map;
}

export async function fetchUpstreamModels(source: { id: number } | { base_url: string; key: string; type?: number }): Promise<string[]> {
  const data =
    'id' in source
      ? await call('GET /api/channel/fetch_models/:id', { params: { id: source.id } })
      : await call('POST /api/channel/fetch_models', { body: source });
  return asArray(data);
}

/** Total for a list-style pager: one extra item while the last page came back full, so "next" exists. */
export function listStyleTotal(page: number, size: number, received: number): number {
  return (page - 1) * size + received + (received >= size ? 1 : 0);
}

export function splitList(value: string | null | undefined): string[] {
  return [...new Set((value ?? '').split(',').map((item) => item.trim()).filter(Boolean))];
}
