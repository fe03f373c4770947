import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addChannel, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';

describe('channel tests, test-all and balances', () => {
  let h: RelayHarness;
  let slow: FakeOpenAI;

  beforeAll(async () => {
    h = await startRelayHarness({ fake: { apiKeys: ['sk-good'] } });
    slow = await startFakeOpenAI({ apiKeys: ['sk-good'], fault: { delayMs: 400 } });
  });
  afterAll(async () => {
    await slow?.close();
    await h?.close();
  });

  // The row with its key opened (keys are stored sealed).
  const channel = async (id: number) => h.server.ctx.channels.open(await h.server.ctx.db.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
  const setOption = (key: string, value: string) => h.root.put('/api/option/', { key, value });

  it('tests one channel: success with the time in seconds, stored as response_time and test_time', async () => {
    const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good', models: 'gpt-4o-mini,gpt-4o', test_model: 'gpt-4o' });
    h.fake.reset();
    const r = await h.root.get(`/api/channel/test/${id}`);
    expect(r.body).toMatchObject({ success: true, message: '' });
    expect(typeof r.body.time).toBe('number');
    expect(h.fake.requests[0]!.body).toMatchObject({ model: 'gpt-4o', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] });
    const row = await channel(id);
    expect(row.test_time).toBeGreaterThan(0);
    expect(row.response_time).toBeGreaterThanOrEqual(0);

    h.fake.reset();
    expect((await h.root.get(`/api/channel/test/${id}?model=gpt-4o-mini`)).body.success).toBe(true);
    expect(h.fake.requests[0]!.body).toMatchObject({ model: 'gpt-4o-mini' });
  });

  it('reports an upstream failure without disabling the channel on a single test', async () => {
    await setOption('AutomaticDisableChannelEnabled', 'true');
    const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-wrong' });
    const r = await h.root.get(`/api/channel/test/${id}`);
    expect(r.body.success).toBe(false);
    expect(r.body.message).toMatch(/API key/);
    expect((await channel(id)).status).toBe(1);
    expect((await h.root.get('/api/channel/test/99999')).body).toMatchObject({ success: false, message: expect.stringMatching(/does not exist/) });
  });

  it('refuses to test task channels', async () => {
    const id = await addChannel(h.root, { type: 2, base_url: h.fake.url, key: 'mj', models: 'mj_imagine' });
    expect((await h.root.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: expect.stringMatching(/cannot be tested/) });
  });

  it('test-all disables dead and slow channels, re-enables recovered ones, and runs one at a time', async () => {
    await h.server.ctx.db.db.deleteFrom('channels').execute();
    await setOption('AutomaticDisableChannelEnabled', 'true');
    await setOption('AutomaticEnableChannelEnabled', 'true');
    await setOption('ChannelDisableThreshold', '0.2');
    const good = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good', name: 'good' });
    const dead = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-wrong', name: 'dead' });
    const slowId = await addChannel(h.root, { base_url: slow.url, key: 'sk-good', name: 'slow' });
    const noBan = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-wrong', name: 'noban', auto_ban: 0 });
    const recovered = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good', name: 'recovered' });
    await h.server.ctx.relay.autoDisableChannel(recovered, 'earlier failure');

    expect((await h.root.get('/api/channel/test')).body.success).toBe(true);
    expect((await h.root.get('/api/channel/test')).body).toMatchObject({ success: false, message: 'Test is already running' });
    const deadline = Date.now() + 20_000;
    while (h.server.ctx.channelOps.testRunning && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(h.server.ctx.channelOps.testRunning).toBe(false);

    expect((await channel(good)).status).toBe(1);
    const d = await channel(dead);
    expect(d.status).toBe(3);
    expect(JSON.parse(d.other_info)).toMatchObject({ status_reason: expect.stringMatching(/API key/), status_time: expect.any(Number) });
    const s = await channel(slowId);
    expect(s.status).toBe(3);
    expect(JSON.parse(s.other_info).status_reason).toMatch(/exceeds the threshold of 0.2s/);
    expect((await channel(noBan)).status).toBe(1);
    expect((await channel(recovered)).status).toBe(1);
    const abilities = await h.server.ctx.db.db.selectFrom('abilities').select(['channel_id', 'enabled']).execute();
    expect(abilities.find((a) => a.channel_id === dead)!.enabled).toBe(0);
    expect(abilities.find((a) => a.channel_id === recovered)!.enabled).toBe(1);
    await setOption('ChannelDisableThreshold', '5');
  });

  it('test-all does not re-enable a channel an admin disabled while its test was running', async () => {
    await h.server.ctx.db.db.deleteFrom('channels').execute();
    await setOption('AutomaticEnableChannelEnabled', 'true');
    const id = await addChannel(h.root, { base_url: slow.url, key: 'sk-good', name: 'recovering' });
    await h.server.ctx.relay.autoDisableChannel(id, 'earlier failure');
    const run = h.server.ctx.channelOps.runTestAll();
    // The slow upstream holds the probe for 400 ms; the admin's switch lands meanwhile.
    await new Promise((r) => setTimeout(r, 150));
    expect((await h.root.put('/api/channel/', { id, status: 2 })).body.success).toBe(true);
    expect(await run).toEqual({ tested: 1, disabled: 0, enabled: 0 });
    expect((await channel(id)).status).toBe(2);
  });

  it('updates a balance from the billing endpoints and disables an exhausted channel on update-all', async () => {
    await h.server.ctx.db.db.deleteFrom('channels').execute();
    h.fake.setBalance({ hardLimitUsd: 120, totalUsageCents: 2050 });
    const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good' });
    const r = await h.root.get(`/api/channel/update_balance/${id}/`);
    expect(r.body).toMatchObject({ success: true, balance: 99.5 });
    expect((await channel(id)).balance).toBe(99.5);

    const other = await addChannel(h.root, { type: 42, base_url: h.fake.url, key: 'sk-good', models: 'mistral-small-latest' });
    expect((await h.root.get(`/api/channel/update_balance/${other}`)).body).toMatchObject({ success: false, message: expect.stringMatching(/not supported by this provider/) });

    h.fake.setBalance({ hardLimitUsd: 10, totalUsageCents: 1000 });
    expect((await h.root.get('/api/channel/update_balance')).body).toMatchObject({ success: true, data: { updated: 1, disabled: 1 } });
    const row = await channel(id);
    expect(row.status).toBe(3);
    expect(JSON.parse(row.other_info).status_reason).toMatch(/insufficient balance/);
  });

  it('fetches models for a saved channel and for a new one from base URL and key', async () => {
    const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good' });
    const saved = await h.root.get(`/api/channel/fetch_models/${id}`);
    expect(saved.body.success).toBe(true);
    expect(saved.body.data).toContain('gpt-4o-mini');
    const fresh = await h.root.post('/api/channel/fetch_models', { base_url: `${h.fake.url}/`, key: 'sk-good' });
    expect(fresh.body.data).toEqual(saved.body.data);
    expect((await h.root.post('/api/channel/fetch_models', { base_url: h.fake.url, key: 'sk-wrong' })).body).toMatchObject({ success: false, message: expect.stringMatching(/HTTP 401/) });
    expect((await h.root.post('/api/channel/fetch_models', { base_url: 'ftp://x', key: 'k' })).body).toMatchObject({ success: false, message: expect.stringMatching(/base URL/) });
  });
  it('copies a channel with its stored key, a suffixed name and fresh counters', async () => {
    const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good', name: 'orig', models: 'gpt-4o-mini,gpt-4o', group: 'default,vip', priority: 4, tag: 't1' });
    await h.server.ctx.db.db.updateTable('channels').set({ used_quota: 999, response_time: 1234, balance: 5 }).where('id', '=', id).execute();
    const r = await h.root.post(`/api/channel/copy/${id}`);
    expect(r.body.success).toBe(true);
    const copy = await channel(r.body.data.id);
    expect(copy).toMatchObject({ name: 'orig_copy', key: 'sk-good', models: 'gpt-4o-mini,gpt-4o', group: 'default,vip', priority: 4, tag: 't1', used_quota: 0, response_time: 0, balance: 0 });
    const abilities = await h.server.ctx.db.db.selectFrom('abilities').selectAll().where('channel_id', '=', copy.id).execute();
    expect(abilities).toHaveLength(4);
    expect((await h.root.get(`/api/channel/test/${copy.id}`)).body.success).toBe(true);
    expect((await h.root.post(`/api/channel/copy/${id}?suffix=-b&reset_balance=false`)).body.success).toBe(true);
    expect((await h.root.post('/api/channel/copy/99999')).body).toMatchObject({ success: false, message: expect.stringMatching(/does not exist/) });
  });
});
