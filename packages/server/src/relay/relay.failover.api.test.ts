import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

describe.each(testDbKinds())('relay failover on %s', (kind) => {
  let h: RelayHarness;
  let bad: FakeOpenAI;

  const messages = [{ role: 'user' as const, content: 'Hi there' }];

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    bad = await startFakeOpenAI();
    await priceModels(h, ['alias-4', 'm-400', 'm-allfail', 'm-ban', 'm-ban-keep', 'm-echo', 'm-live', 'm-live2', 'm-map', 'm-pin', 'm-retry']);
  });
  afterAll(async () => {
    await bad.close();
    await h.close();
  });
  afterEach(async () => {
    bad.setFault(null);
    h.fake.setFault(null);
    // Each test builds its own channels for its own model.
    await h.server.ctx.options.set('RetryTimes', '0');
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  });

  async function channelStatus(id: number): Promise<{ status: number; other_info: string }> {
    const r = await h.root.get(`/api/channel/${id}`);
    return r.body.data;
  }

  describe('retries and failover', () => {
    it('retries a 429 / 500 on another channel, never the one that failed', async () => {
      await h.server.ctx.options.set('RetryTimes', '3');
      const failing = await addChannel(h.root, { base_url: bad.url, models: 'm-retry', priority: 10 });
      const good = await addChannel(h.root, { base_url: h.fake.url, models: 'm-retry', priority: 0 });
      for (const status of [429, 500]) {
        bad.setFault({ status });
        bad.reset();
        bad.setFault({ status });
        const c = await addCaller(h);
        const res = await c.client.chat.completions.create({ model: 'm-retry', messages });
        expect(res.choices[0]!.message.content).toBeTruthy();
        expect(bad.requests).toHaveLength(1);
        const logs = await consumeLogs(h, c.userId);
        expect(logs).toHaveLength(1);
        expect(Number(logs[0]!.channel_id)).toBe(good);
        expect(JSON.parse(logs[0]!.other).admin_info.use_channel).toEqual([String(failing), String(good)]);
      }
    });

    it('charges nothing when every channel fails, and answers with the upstream error', async () => {
      await h.server.ctx.options.set('RetryTimes', '2');
      await addChannel(h.root, { base_url: bad.url, models: 'm-allfail' });
      await addChannel(h.root, { base_url: bad.url, models: 'm-allfail', key: 'other-key' });
      bad.setFault({ status: 500 });
      const c = await addCaller(h);
      const before = await balances(h, c);
      const err = await c.client.chat.completions.create({ model: 'm-allfail', messages }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 500 });
      expect(String((err as Error).message)).toContain('request id');
      const after = await balances(h, c);
      expect(after).toEqual(before);
      expect(await consumeLogs(h, c.userId)).toHaveLength(0);
      const open = await h.server.ctx.db.db.selectFrom('reservations').selectAll().execute();
      expect(open).toHaveLength(0);
    });

    it('does not retry a 400, and a 429 tells the client the group is saturated', async () => {
      await h.server.ctx.options.set('RetryTimes', '3');
      await addChannel(h.root, { base_url: bad.url, models: 'm-400' });
      await addChannel(h.root, { base_url: bad.url, models: 'm-400', key: 'k2' });
      bad.reset();
      bad.setFault({ status: 400, message: 'bad thing' });
      const c = await addCaller(h);
      const err = await c.client.chat.completions.create({ model: 'm-400', messages }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400 });
      expect(bad.requests).toHaveLength(1);
    });

    it('applies status_code_mapping before retry and the client see the mapped status', async () => {
      await addChannel(h.root, { base_url: bad.url, models: 'm-map', status_code_mapping: '{"404":"503"}' });
      bad.setFault({ status: 404 });
      const c = await addCaller(h);
      const err = await c.client.chat.completions.create({ model: 'm-map', messages }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 503 });
    });

    it('auto-disables a channel whose key is rejected, records why, and stops selecting it', async () => {
      await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
      const dead = await addChannel(h.root, { base_url: bad.url, models: 'm-ban' });
      const keep = await addChannel(h.root, { base_url: bad.url, models: 'm-ban-keep', auto_ban: 0 });
      bad.setFault({ status: 401 });
      const c = await addCaller(h);
      const err = await c.client.chat.completions.create({ model: 'm-ban', messages }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 401 });
      // The upstream's message names (a masked form of) the channel key: never passed to users.
      expect(String((err as Error).message)).not.toContain('Incorrect API key');
      const st = await channelStatus(dead);
      expect(st.status).toBe(3);
      expect(JSON.parse(st.other_info)).toMatchObject({ status_reason: expect.any(String), status_time: expect.any(Number) });
      await expect(c.client.chat.completions.create({ model: 'm-ban', messages })).rejects.toMatchObject({ status: 503 });
      // auto_ban off: the same error leaves the channel enabled.
      await expect(c.client.chat.completions.create({ model: 'm-ban-keep', messages })).rejects.toMatchObject({ status: 401 });
      expect((await channelStatus(keep)).status).toBe(1);
    });

    it('never disables a channel because of text a user controls', async () => {
      await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
      const ch = await addChannel(h.root, { base_url: bad.url, models: 'm-echo' });
      bad.setFault({ status: 400, message: 'You exceeded your current quota, please check your plan' });
      const c = await addCaller(h);
      await expect(c.client.chat.completions.create({ model: 'm-echo', messages })).rejects.toMatchObject({ status: 400 });
      expect((await channelStatus(ch)).status).toBe(1);
    });

    it('a disabled or edited channel is in force on the next request', async () => {
      const ch = await addChannel(h.root, { base_url: h.fake.url, models: 'm-live' });
      const c = await addCaller(h);
      await c.client.chat.completions.create({ model: 'm-live', messages });
      await h.root.put('/api/channel/', { id: ch, status: 2 });
      await expect(c.client.chat.completions.create({ model: 'm-live', messages })).rejects.toMatchObject({ status: 503 });
      await h.root.put('/api/channel/', { id: ch, status: 1 });
      await c.client.chat.completions.create({ model: 'm-live', messages });
      const full = (await h.root.get(`/api/channel/${ch}`)).body.data;
      await h.root.put('/api/channel/', { ...full, models: 'm-live2' });
      // No channel offers m-live any more: an unknown model (404), not an unavailable one (503).
      await expect(c.client.chat.completions.create({ model: 'm-live', messages })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
      await c.client.chat.completions.create({ model: 'm-live2', messages });
    });

    it('applies model_mapping upstream and bills the requested model', async () => {
      await addChannel(h.root, { base_url: h.fake.url, models: 'alias-4', model_mapping: '{"alias-4":"gpt-4"}' });
      const c = await addCaller(h);
      await c.client.chat.completions.create({ model: 'alias-4', messages });
      expect((h.fake.requests.at(-1)!.body as { model: string }).model).toBe('gpt-4');
      expect((await consumeLogs(h, c.userId))[0]!.model_name).toBe('alias-4');
    });
  });

  describe('channel pin', () => {
    it('admins may pin a channel with sk-<key>-<id>; a pinned request is never retried', async () => {
      await h.server.ctx.options.set('RetryTimes', '3');
      const a = await addChannel(h.root, { base_url: bad.url, models: 'm-pin' });
      await addChannel(h.root, { base_url: h.fake.url, models: 'm-pin' });
      const admin = await addCaller(h, { role: 10 });
      const { default: OpenAI } = await import('openai');
      const pinned = new OpenAI({ apiKey: `sk-${admin.key}-${a}`, baseURL: `${h.server.url}/v1`, maxRetries: 0 });
      bad.reset();
      bad.setFault({ status: 500 });
      await expect(pinned.chat.completions.create({ model: 'm-pin', messages })).rejects.toMatchObject({ status: 500 });
      expect(bad.requests).toHaveLength(1);
      bad.setFault(null);
      await pinned.chat.completions.create({ model: 'm-pin', messages });
      expect(Number((await consumeLogs(h, admin.userId))[0]!.channel_id)).toBe(a);

      const user = await addCaller(h);
      const notAdmin = new OpenAI({ apiKey: `sk-${user.key}-${a}`, baseURL: `${h.server.url}/v1`, maxRetries: 0 });
      await expect(notAdmin.chat.completions.create({ model: 'm-pin', messages })).rejects.toMatchObject({ status: 403 });
    });
  });
});
