import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';

describe.each(testDbKinds())('logs and pricing on %s', (kind) => {
  let h: RelayHarness;
  let alice: TestCaller;
  let aliceApi: ApiClient;
  let channelId: number;
  const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    channelId = await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4,gpt-4o-mini' });
    const reg = await new ApiClient(h.server.url).post('/api/user/register', { username: 'alice', password: 'password123', password2: 'password123' });
    expect(reg.body.success).toBe(true);
    const row = await h.server.ctx.db.db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow();
    await h.server.ctx.quotaLedger.move({ kind: 'test', userId: Number(row.id), quota: 1_000_000 });
    aliceApi = new ApiClient(h.server.url);
    await aliceApi.login('alice', 'password123');
    const c = await addCaller(h);
    // A token of alice's own.
    await h.server.ctx.db.db.updateTable('tokens').set({ user_id: row.id }).where('id', '=', c.tokenId).execute();
    alice = { ...c, userId: Number(row.id) };
    await alice.client.chat.completions.create({ model: 'gpt-4', messages });
    await alice.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
  });
  afterAll(() => h.close());

  describe('logs API', () => {
    it('lists with every filter in the paged shape; other is a JSON string; channel is the id', async () => {
      const all = await h.root.get('/api/log/?p=1&page_size=10&type=0&username=&token_name=&model_name=&start_timestamp=&end_timestamp=&channel=&group=');
      expect(all.body.data).toMatchObject({ page: 1, page_size: 10 });
      const consume = all.body.data.items.filter((l: { type: number }) => l.type === 2);
      expect(consume).toHaveLength(2);
      for (const l of consume) {
        expect(typeof l.other).toBe('string');
        expect(JSON.parse(l.other).admin_info.use_channel).toEqual([String(channelId)]);
        expect(l).toMatchObject({ channel: channelId, username: 'alice', token_name: 'test-token', group: 'default', is_stream: false });
      }
      const byModel = await h.root.get('/api/log/?p=1&page_size=10&type=2&model_name=gpt-4&username=alice&token_name=test-token&channel=' + channelId);
      expect(byModel.body.data.total).toBe(1);
      const now = Math.floor(Date.now() / 1000);
      expect((await h.root.get(`/api/log/?p=1&type=2&start_timestamp=${now + 100}`)).body.data.total).toBe(0);
      expect((await h.root.get(`/api/log/?p=1&type=2&end_timestamp=${now + 100}&start_timestamp=${now - 100}`)).body.data.total).toBe(2);
      expect((await h.root.get('/api/log/?p=1&type=2&group=vip')).body.data.total).toBe(0);
      // Every row has a JSON `other`, even rows written without one.
      for (const l of all.body.data.items) expect(() => JSON.parse(l.other)).not.toThrow();
    });

    it('self lists only the caller and hides admin_info', async () => {
      const mine = await aliceApi.get('/api/log/self/?p=1&page_size=10&type=2&token_name=&model_name=&start_timestamp=&end_timestamp=&group=');
      expect(mine.body.data.total).toBe(2);
      for (const l of mine.body.data.items) expect(JSON.parse(l.other).admin_info).toBeUndefined();
      expect((await aliceApi.get('/api/log/?p=1')).body.success).toBe(false);
    });

    it('stat sums quota and reports rpm / tpm over the last minute', async () => {
      const stat = await h.root.get('/api/log/stat?type=2&username=alice');
      const logs = await h.server.ctx.db.db.selectFrom('logs').selectAll().where('type', '=', 2).execute();
      const quota = logs.reduce((s, l) => s + Number(l.quota), 0);
      expect(stat.body.data).toEqual({ quota, rpm: 2, tpm: logs.reduce((s, l) => s + Number(l.prompt_tokens) + Number(l.completion_tokens), 0) });
      expect((await aliceApi.get('/api/log/self/stat?type=2')).body.data.quota).toBe(quota);
    });

    it('deletes logs older than a timestamp and returns the count', async () => {
      await h.server.ctx.db.db.insertInto('logs').values({ user_id: 1, created_at: 1000, type: 4, content: 'old', other: '' }).execute();
      const r = await h.root.del('/api/log/?target_timestamp=2000');
      expect(r.body).toMatchObject({ success: true, data: 1 });
    });
  });

  describe('pricing API', () => {
    it('is public, lists models with enabled channels, and puts group_ratio and usable_group at the top level', async () => {
      const res = await fetch(`${h.server.url}/api/pricing`);
      const body = (await res.json()) as { success: boolean; group_ratio: Record<string, number>; usable_group: Record<string, string>; data: Array<{ model_name: string }> };
      expect(body.success).toBe(true);
      expect(body.group_ratio).toMatchObject({ default: 1 });
      expect(body.usable_group).toHaveProperty('default');
      const gpt4 = body.data.find((m: { model_name: string }) => m.model_name === 'gpt-4');
      expect(gpt4).toMatchObject({ quota_type: 0, model_ratio: 15, completion_ratio: 2, enable_groups: ['default'] });
      expect(body.data[0].model_name.startsWith('gpt')).toBe(true);
    });

    it('root resets the ratio tables to the defaults', async () => {
      await h.root.put('/api/option/', { key: 'ModelRatio', value: '{"gpt-4": 1}' });
      expect((await h.root.post('/api/option/rest_model_ratio')).body.success).toBe(true);
      expect(h.server.ctx.options.json<Record<string, number>>('ModelRatio', {})['gpt-4']).toBe(15);
      expect((await aliceApi.post('/api/option/rest_model_ratio')).body.success).toBe(false);
    });
  });
});
