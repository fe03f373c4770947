import { autoDisableInfo, modelsForType } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { aChannel } from '../../test/fixtures';
import type { Channel } from './api';
import { addCustomModels, buildChannelPayload, channelToFormValues, DEFAULT_CHANNEL_VALUES, settingFlag, toInt, withSettingFlag } from './channel-form';
import { groupByTag, isTagRow, responseBand } from './channel-status';
import { buildTagEdit } from './tag-form';

const values = (over: Partial<typeof DEFAULT_CHANNEL_VALUES> = {}) => ({
  ...DEFAULT_CHANNEL_VALUES,
  name: 'one',
  key: 'sk-1',
  models: ['gpt-4o'],
  ...over,
});

function channel(over: Partial<Channel> = {}): Channel {
  return aChannel(7, { name: 'seven', models: 'a,b', group: 'default,vip', tag: 't', priority: 3, weight: 2, used_quota: 9, created_time: 1, ...over });
}

describe('channel form (spec §5)', () => {
  it('needs a name and, on create, a key', () => {
    expect(buildChannelPayload(values({ name: ' ' }), 'create')).toEqual({ problem: 'nameKey' });
    expect(buildChannelPayload(values({ key: '' }), 'create')).toEqual({ problem: 'nameKey' });
    expect('payload' in buildChannelPayload(values({ key: '' }), 'edit', channel())).toBe(true);
  });

  it('needs groups and at least one model, and JSON objects in the JSON fields', () => {
    expect(buildChannelPayload(values({ groups: [] }), 'create')).toEqual({ problem: 'groups' });
    expect(buildChannelPayload(values({ models: [] }), 'create')).toEqual({ problem: 'models' });
    expect(buildChannelPayload(values({ model_mapping: '{bad' }), 'create')).toEqual({ problem: 'mapping' });
    expect(buildChannelPayload(values({ status_code_mapping: '[1]' }), 'create')).toEqual({ problem: 'statusMapping' });
    expect(buildChannelPayload(values({ setting: 'x' }), 'create')).toEqual({ problem: 'setting' });
  });

  it('sends one key per line in batch mode, comma strings for models and groups, integers for priority and weight', () => {
    const result = buildChannelPayload(
      values({ key: ' k1 \n\n k2 ', groups: ['default', 'vip'], models: ['a', ' b ', 'a'], priority: -5000, weight: -3, max_input_tokens: -1 }),
      'create',
    );
    expect(result).toMatchObject({
      payload: { key: 'k1\nk2', models: 'a,b', group: 'default,vip', groups: ['default', 'vip'], priority: -999, weight: 0, max_input_tokens: 0, auto_ban: 1 },
    });
    expect(buildChannelPayload(values({ max_input_tokens: 8000 }), 'create')).toMatchObject({ payload: { max_input_tokens: 8000 } });
    expect(channelToFormValues(channel({ max_input_tokens: 4096 })).max_input_tokens).toBe(4096);
  });

  it('defaults Azure to 2023-06-01-preview and Spark to v2.1, and keeps a JSON key whole for Vertex', () => {
    expect(buildChannelPayload(values({ type: 3, base_url: 'https://x' }), 'create')).toMatchObject({ payload: { other: '2023-06-01-preview' } });
    expect(buildChannelPayload(values({ type: 3 }), 'create')).toEqual({ problem: 'baseUrl' });
    expect(buildChannelPayload(values({ type: 18 }), 'create')).toMatchObject({ payload: { other: 'v2.1' } });
    const json = '{\n "type": "service_account"\n}';
    expect(buildChannelPayload(values({ type: 41, key: json, other: 'us-central1' }), 'create')).toMatchObject({ payload: { key: json } });
    expect(buildChannelPayload(values({ type: 41, key: json, other: '{"a":"b"}' }), 'create')).toEqual({ problem: 'vertexRegion' });
  });

  it('says the server’s target rules before sending: nothing placed in a URL can move its host', () => {
    const json = '{\n "type": "service_account"\n}';
    // The Vertex attack of issue 29: a "region" that makes the host 127.0.0.1.
    expect(buildChannelPayload(values({ type: 41, key: json, other: '127.0.0.1:8080/x?' }), 'create')).toEqual({ problem: 'vertexRegion' });
    expect(buildChannelPayload(values({ type: 41, key: json, other: '{"default":"evil.test/"}' }), 'create')).toEqual({ problem: 'vertexRegion' });
    expect(buildChannelPayload(values({ type: 41, key: json, other: '{"default":"europe-west4"}' }), 'create')).toMatchObject({ payload: { other: '{"default":"europe-west4"}' } });
    expect(buildChannelPayload(values({ type: 39, other: 'd6b5da8hk1awo8nap34ube6gh' }), 'create')).toEqual({ problem: 'cloudflareAccount' });
    expect(buildChannelPayload(values({ type: 39, other: '0123456789abcdef0123456789abcdef' }), 'create')).toMatchObject({ payload: { other: '0123456789abcdef0123456789abcdef' } });
    expect(buildChannelPayload(values({ type: 3, base_url: 'https://x', other: '2024-10-21&x=1' }), 'create')).toEqual({ problem: 'azureVersion' });
    expect(buildChannelPayload(values({ type: 18, other: '../v1' }), 'create')).toEqual({ problem: 'sparkVersion' });
    expect(buildChannelPayload(values({ base_url: 'ftp://files.example' }), 'create')).toEqual({ problem: 'targetBaseUrl' });
    expect(buildChannelPayload(values({ base_url: 'https://user:pw@api.example' }), 'create')).toEqual({ problem: 'targetBaseUrl' });
    expect(buildChannelPayload(values({ setting: '{"proxy":"file:///etc"}' }), 'create')).toEqual({ problem: 'targetProxy' });
    expect(buildChannelPayload(values({ setting: '{"proxy":"socks5://u:p@proxy.example:1080"}' }), 'create')).toMatchObject({ payload: { setting: '{"proxy":"socks5://u:p@proxy.example:1080"}' } });
  });

  it('edits send the loaded record back with an empty key and without status or accounting', () => {
    const loaded = channel({ status: 3, other_info: '{"status_reason":"x"}' });
    const result = buildChannelPayload({ ...channelToFormValues(loaded), name: 'renamed' }, 'edit', loaded);
    expect('payload' in result && result.payload).toMatchObject({ id: 7, name: 'renamed', key: '', models: 'a,b', group: 'default,vip', tag: 't' });
    const payload = (result as { payload: Record<string, unknown> }).payload;
    for (const field of ['status', 'other_info', 'used_quota', 'balance']) expect(payload).not.toHaveProperty(field);
  });

  it('custom models are trimmed and a duplicate rejects the entry', () => {
    expect(addCustomModels(['a'], ' b , c ')).toEqual({ models: ['a', 'b', 'c'] });
    expect(addCustomModels(['a'], 'b, a')).toEqual({ duplicate: true });
    expect(addCustomModels(['a'], 'b, b')).toEqual({ duplicate: true });
    expect(addCustomModels(['a'], ' , ')).toBeNull();
  });

  it('type changes prefill the spec §4 lists', () => {
    expect(modelsForType(2, {})).toHaveLength(7);
    expect(modelsForType(5, {})).toEqual(expect.arrayContaining(['mj_imagine', 'swap_face', 'mj_pan']));
    expect(modelsForType(36, {})).toEqual(['suno_music', 'suno_lyrics']);
    expect(modelsForType(43, { '43': ['deepseek-chat'] })).toEqual(['deepseek-chat']);
  });

  it('parses integers leniently with minimums', () => {
    expect(toInt('12.7')).toBe(12);
    expect(toInt('x')).toBe(0);
    expect(toInt(-5, 0)).toBe(0);
  });
});

describe('channel status', () => {
  it('reads the auto-disable reason only for status 3', () => {
    const other_info = JSON.stringify({ status_reason: 'bad key', status_time: 1700000000 });
    expect(autoDisableInfo({ status: 3, other_info })).toEqual({ reason: 'bad key', time: 1700000000 });
    expect(autoDisableInfo({ status: 2, other_info })).toBeNull();
    expect(autoDisableInfo({ status: 3, other_info: '' })).toBeNull();
    expect(autoDisableInfo({ status: 3, other_info: '{oops' })).toBeNull();
  });

  it('colours response times by the spec §4 bands', () => {
    expect([0, 1000, 1001, 3000, 5000, 5001].map(responseBand)).toEqual(['untested', 'fast', 'good', 'good', 'slow', 'bad']);
  });

  it('groups tag mode rows in order', () => {
    const rows = groupByTag([channel({ id: 1, tag: 'x' }), channel({ id: 2, tag: 'y' }), channel({ id: 3, tag: 'x' })]);
    expect(rows.map((row) => (isTagRow(row) ? `${row.tag}:${row.children.map((c) => c.id).join(',')}` : row.id))).toEqual(['x:1,3', 'y:2']);
  });
});

describe('tag dialog (spec §5)', () => {
  const empty = { new_tag: 'old', priority: null, weight: null, models: [], groups: [], model_mapping: '' };
  it("refuses an unchanged dialog with 'no change'", () => {
    expect(buildTagEdit('old', empty)).toEqual({ problem: 'noChange' });
  });
  it('sends only what changed; an empty new tag dissolves it', () => {
    expect(buildTagEdit('old', { ...empty, new_tag: '' })).toEqual({ edit: { tag: 'old', new_tag: '' } });
    expect(buildTagEdit('old', { ...empty, priority: -3, weight: '4', models: ['a', 'b'], groups: ['vip'] })).toEqual({
      edit: { tag: 'old', priority: -3, weight: 4, models: 'a,b', groups: 'vip' },
    });
  });
  it('checks priority, weight and mapping', () => {
    expect(buildTagEdit('old', { ...empty, priority: 1.5 })).toEqual({ problem: 'priority' });
    expect(buildTagEdit('old', { ...empty, weight: -1 })).toEqual({ problem: 'weight' });
    expect(buildTagEdit('old', { ...empty, model_mapping: '{' })).toEqual({ problem: 'mapping' });
  });
});

describe('setting flags (DeepSeek thinking_to_content)', () => {
  it('reads a flag of the setting JSON; a text that is not a JSON object gives undefined', () => {
    expect(settingFlag('', 'thinking_to_content')).toBe(false);
    expect(settingFlag('{"thinking_to_content": true}', 'thinking_to_content')).toBe(true);
    expect(settingFlag('{"thinking_to_content": "yes"}', 'thinking_to_content')).toBe(false);
    expect(settingFlag('{not json', 'thinking_to_content')).toBeUndefined();
  });

  it('sets or removes the flag and keeps the other keys', () => {
    expect(JSON.parse(withSettingFlag('{"force_format": true}', 'thinking_to_content', true))).toEqual({ force_format: true, thinking_to_content: true });
    expect(JSON.parse(withSettingFlag('{"force_format": true, "thinking_to_content": true}', 'thinking_to_content', false))).toEqual({ force_format: true });
    expect(withSettingFlag('{"thinking_to_content": true}', 'thinking_to_content', false)).toBe('');
    expect(JSON.parse(withSettingFlag('', 'thinking_to_content', true))).toEqual({ thinking_to_content: true });
  });
});
