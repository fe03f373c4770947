import { z } from 'zod';
import { GROUP_NAME_MAX_LENGTH } from '../constants.js';
import { resource } from './contract.js';
import { apiEmpty, apiFailure, apiResponse } from './envelope.js';
import { id, idParam, int32, line, listQuery, nameList, queryFlag, queryText, safeInt, text } from './fields.js';

/**
 * A channel as the console expects it (console-api.md G5/G6): strings never null, `models` and
 * `group` comma strings, and the key never included — `key: ""` like the reference.
 */
export const channel = z
  .object({
    id: z.number().int(),
    type: z.number().int(),
    key: z.literal(''),
    openai_organization: z.string(),
    test_model: z.string(),
    /** 1 enabled, 2 manually disabled, 3 auto-disabled (spec §4). */
    status: z.number().int(),
    name: z.string(),
    weight: z.number().int(),
    created_time: z.number().int(),
    test_time: z.number().int(),
    /** Milliseconds; 0 = never tested. */
    response_time: z.number().int(),
    base_url: z.string(),
    other: z.string(),
    /** USD. */
    balance: z.number(),
    balance_updated_time: z.number().int(),
    models: z.string(),
    group: z.string(),
    used_quota: z.number().int(),
    model_mapping: z.string(),
    status_code_mapping: z.string(),
    priority: z.number().int(),
    auto_ban: z.number().int(),
    /** JSON `{status_reason, status_time}`; meaningful only while status is 3. */
    other_info: z.string(),
    tag: z.string(),
    setting: z.string(),
    max_input_tokens: z.number().int(),
  })
  .meta({ id: 'Channel' });
export type Channel = z.infer<typeof channel>;

/**
 * What the database columns can hold, checked before the service's own rules: integer columns,
 * varchar widths, and the per-item widths of the abilities rows the models and groups lists
 * become (model varchar(255), group varchar(64)). The console sends the whole record back, so
 * unknown and read-only fields pass through and are ignored; `key` empty on edit keeps the stored one.
 */
export const channelBody = z.looseObject({
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
export type ChannelBody = z.input<typeof channelBody>;

export const channelListQuery = listQuery.extend({ id_sort: queryFlag, tag_mode: queryFlag });
export const channelSearchQuery = z.object({ keyword: queryText, group: queryText, model: queryText, id_sort: queryFlag, tag_mode: queryFlag });
export const channelIds = z.object({ ids: z.array(id) });
export const tagBody = z.object({ tag: line(255) });
export const tagEditBody = z.object({
  tag: line(255),
  new_tag: line(255).nullish(),
  priority: safeInt.nullish(),
  weight: int32.nullish(),
  model_mapping: text().nullish(),
  models: nameList(255).nullish(),
  groups: nameList(GROUP_NAME_MAX_LENGTH, 255).nullish(),
});
export type TagEditBody = z.input<typeof tagEditBody>;

/** `{id, object, created, owned_by}` per known model; the console uses `.id`. */
export const modelEntry = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() });

/** A test or balance answer: the console reads `time` or `balance` next to success and message. */
export const channelTestResult = z.object({ success: z.boolean(), message: z.string(), time: z.number() });
export const channelBalanceResult = z.object({ success: z.boolean(), message: z.string(), balance: z.number() });
export type ChannelTestResult = z.infer<typeof channelTestResult>;
export type ChannelBalanceResult = z.infer<typeof channelBalanceResult>;

const count = apiResponse(z.number().int());

export const channelRoutes = resource('channels', {
  'GET /api/channel/': {
    auth: 'admin',
    summary: 'Channels, list style (p from 0); tag_mode lists whole tags',
    querystring: channelListQuery,
    response: apiResponse(z.array(channel)),
  },
  'GET /api/channel/search': { auth: 'admin', summary: 'Channels by keyword, group and model', querystring: channelSearchQuery, response: apiResponse(z.array(channel)) },
  'GET /api/channel/models': { auth: 'admin', summary: 'Every model the gateway knows', response: apiResponse(z.array(modelEntry)) },
  'GET /api/channel/:id': { auth: 'admin', summary: 'One channel (its key is never sent)', params: idParam, response: apiResponse(channel) },
  'POST /api/channel/': {
    auth: 'admin',
    summary: 'Create channels: one per line of `key`',
    body: channelBody,
    response: apiEmpty,
    audit: { action: 'channel.create', target: 'channel', targetId: 'body.name' },
  },
  'POST /api/channel/copy/:id': {
    auth: 'admin',
    summary: 'Copy a channel server-side, key included',
    params: idParam,
    querystring: z.object({ suffix: line(64).optional(), reset_balance: z.string().optional() }),
    response: apiResponse(z.object({ id: z.number().int() })),
    audit: { action: 'channel.copy', target: 'channel', targetId: 'params.id', result: true },
  },
  'PUT /api/channel/': {
    auth: 'admin',
    summary: 'Edit a channel; a partial body (id plus status, priority or weight) changes only those',
    body: channelBody,
    response: apiResponse(channel),
    audit: { action: 'channel.update', target: 'channel', targetId: 'body.id', snapshot: true },
  },
  'DELETE /api/channel/:id': {
    auth: 'admin',
    summary: 'Delete a channel',
    params: idParam,
    response: apiEmpty,
    audit: { action: 'channel.delete', target: 'channel', targetId: 'params.id', snapshot: true },
  },
  'GET /api/models': { auth: 'user', summary: 'Channel type → its default model names', response: apiResponse(z.record(z.string(), z.array(z.string()))) },
  'DELETE /api/channel/disabled': {
    auth: 'admin',
    summary: 'Delete every disabled channel; answers the count',
    response: count,
    audit: { action: 'channel.delete_disabled', target: 'channel', result: true },
  },
  'POST /api/channel/batch': {
    auth: 'admin',
    summary: 'Delete channels by id; answers the count',
    body: channelIds,
    response: count,
    audit: { action: 'channel.delete_batch', target: 'channel', targetId: 'body.ids', result: true },
  },
  'POST /api/channel/fix': {
    auth: 'admin',
    summary: 'Rebuild the abilities of every channel; answers the count',
    response: count,
    audit: { action: 'channel.fix_abilities', target: 'channel', result: true },
  },
  'POST /api/channel/batch/tag': {
    auth: 'admin',
    summary: 'Set (or clear) the tag of channels; answers the count',
    body: channelIds.extend({ tag: line(255).nullish() }),
    response: count,
    audit: { action: 'channel.tag_set', target: 'channel', targetId: 'body.ids', result: true },
  },
  'POST /api/channel/tag/enabled': {
    auth: 'admin',
    summary: 'Enable every channel of a tag',
    body: tagBody,
    response: apiEmpty,
    audit: { action: 'channel.tag_enable', target: 'channel_tag', targetId: 'body.tag' },
  },
  'POST /api/channel/tag/disabled': {
    auth: 'admin',
    summary: 'Disable every channel of a tag',
    body: tagBody,
    response: apiEmpty,
    audit: { action: 'channel.tag_disable', target: 'channel_tag', targetId: 'body.tag' },
  },
  'PUT /api/channel/tag': {
    auth: 'admin',
    summary: 'Edit every channel of a tag (empty values change nothing)',
    body: tagEditBody,
    response: apiEmpty,
    audit: { action: 'channel.tag_update', target: 'channel_tag', targetId: 'body.tag' },
  },
  'GET /api/channel/test/:id': {
    auth: 'admin',
    summary: 'Test a channel with one request; `time` in seconds',
    params: idParam,
    querystring: z.object({ model: z.string().optional() }),
    response: z.union([channelTestResult, apiFailure]),
  },
  'GET /api/channel/test': { auth: 'admin', summary: 'Start testing every channel in the background', response: apiEmpty },
  'GET /api/channel/update_balance/:id': {
    auth: 'admin',
    summary: 'Update a channel’s balance (USD)',
    params: idParam,
    response: z.union([channelBalanceResult, apiFailure]),
  },
  'GET /api/channel/update_balance': {
    auth: 'admin',
    summary: 'Update every enabled channel’s balance',
    response: apiResponse(z.object({ updated: z.number().int(), disabled: z.number().int() })),
  },
  'GET /api/channel/fetch_models/:id': { auth: 'admin', summary: 'Models the channel’s upstream lists', params: idParam, response: apiResponse(z.array(z.string())) },
  'POST /api/channel/fetch_models': {
    auth: 'admin',
    summary: 'Models an upstream lists, from a base URL and key',
    body: z.object({ base_url: z.string().default(''), key: z.string().default(''), type: z.number().int().positive().optional() }),
    response: apiResponse(z.array(z.string())),
    audit: { skip: 'reads an upstream model list; stores nothing' },
  },
});
