import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../ledger/ledger.js';
import { reconcile } from '../ledger/reconcile.js';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

describe.each(testDbKinds())('relay auth and ledger on %s', (kind) => {
  let h: RelayHarness;
  const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { name: 'main', base_url: h.fake.url, models: 'gpt-4,gpt-4o-mini' });
  });
  afterAll(() => h.close());

  function sdk(key: string, extra = ''): OpenAI {
    return new OpenAI({ apiKey: `sk-${key}${extra}`, baseURL: `${h.server.url}/v1`, maxRetries: 0 });
  }

  describe('token authentication', () => {
    it('rejects missing, unknown, disabled, expired and exhausted tokens with OpenAI errors', async () => {
      const res = await fetch(`${h.server.url}/v1/chat/completions`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { message: expect.any(String), type: 'new_api_error' } });

      await expect(sdk('nope').chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 401 });
      const disabled = await addCaller(h, { token: { status: 2 } });
      await expect(disabled.client.chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 401 });
      const expired = await addCaller(h, { token: { expired_time: 1000 } });
      await expect(expired.client.chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 401 });
      const row = await h.server.ctx.db.db.selectFrom('tokens').select('status').where('id', '=', expired.tokenId).executeTakeFirstOrThrow();
      expect(row.status).toBe(3);
      const empty = await addCaller(h, { remain: 0 });
      const err = await empty.client.chat.completions.create({ model: 'gpt-4', messages }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 401 });
    });

    it('enforces model limits, allowed IPs, token groups and user quota', async () => {
      const limited = await addCaller(h, { token: { model_limits_enabled: 1, model_limits: 'gpt-4o-mini' } });
      await expect(limited.client.chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 403 });
      await limited.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
      expect((await limited.client.models.list()).data.map((m) => m.id)).toEqual(['gpt-4o-mini']);

      const ip = await addCaller(h, { token: { allow_ips: '10.0.0.1' } });
      await expect(ip.client.chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 403 });

      const grouped = await addCaller(h, { token: { group: 'nope' } });
      await expect(grouped.client.chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 403 });

      const poor = await addCaller(h, { quota: 0 });
      await expect(poor.client.chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 403, code: 'insufficient_user_quota' });

      const none = await addCaller(h);
      await expect(none.client.chat.completions.create({ model: 'no-such-model', messages })).rejects.toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });
    });

    it('sees token and user edits on the next request (cache invalidation)', async () => {
      const c = await addCaller(h);
      await c.client.chat.completions.create({ model: 'gpt-4', messages });
      await h.server.ctx.tokens.update(c.userId, c.tokenId, { status: 2 });
      await expect(c.client.chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 401 });
      await h.server.ctx.tokens.update(c.userId, c.tokenId, { status: 1 });
      await c.client.chat.completions.create({ model: 'gpt-4', messages });
      await h.server.ctx.users.update(c.userId, { status: 2 });
      await expect(c.client.chat.completions.create({ model: 'gpt-4', messages })).rejects.toMatchObject({ status: 403 });
    });

    it('answers 501 for the endpoints it does not implement', async () => {
      const c = await addCaller(h);
      const res = await fetch(`${h.server.url}/v1/files`, { headers: { authorization: `Bearer sk-${c.key}` } });
      expect(res.status).toBe(501);
      expect(await res.json()).toMatchObject({ error: { code: 'api_not_implemented' } });
    });
  });

  describe('ledger', () => {
    it('never drives a balance negative under concurrency, and charges equal the logged quota', async () => {
      // Each call costs (3 + 5×2) × 15 = 195 and reserves (body bytes + 7) × … — a balance for a
      // handful of calls, hit by many at once.
      const c = await addCaller(h, { quota: 3000, remain: 100_000_000 });
      const before = await balances(h, c);
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, () => c.client.chat.completions.create({ model: 'gpt-4', messages, max_tokens: 5 })),
      );
      const okCount = results.filter((r) => r.status === 'fulfilled').length;
      expect(okCount).toBeGreaterThan(0);
      expect(okCount).toBeLessThan(40);
      for (const r of results) if (r.status === 'rejected') expect((r.reason as { status: number }).status).toBeGreaterThanOrEqual(400);
      const after = await balances(h, c);
      expect(after.quota).toBeGreaterThanOrEqual(0);
      const logs = await consumeLogs(h, c.userId);
      expect(logs).toHaveLength(okCount);
      const logged = logs.reduce((s, l) => s + Number(l.quota), 0);
      expect(before.quota - after.quota).toBe(logged);
      expect(after.userUsed).toBe(logged);
      expect(after.requests).toBe(okCount);
      expect(await h.server.ctx.db.db.selectFrom('reservations').selectAll().execute()).toHaveLength(0);
    });

    it('token remain is a limit that concurrency cannot overrun', async () => {
      const c = await addCaller(h, { quota: 100_000_000, remain: 2000 });
      await Promise.allSettled(Array.from({ length: 30 }, () => c.client.chat.completions.create({ model: 'gpt-4', messages, max_tokens: 5 })));
      const after = await balances(h, c);
      expect(after.remain).toBeGreaterThanOrEqual(0);
      expect(after.tokenUsed + after.remain).toBe(2000);
    });

    it('recovery releases this node\'s reservations from before its start and expired leases, never a live node\'s', async () => {
      const c = await addCaller(h, { quota: 10_000, remain: 10_000 });
      const ctx = h.server.ctx;
      const me = ctx.relay.ledger;
      const now = Math.floor(Date.now() / 1000);
      // What a crash of this node's previous run leaves: a debit and its reservation from before the start.
      const previousRun = new Ledger(ctx.db, me.nodeId, 60);
      expect(await previousRun.reserve({ requestId: 'crashed-1', userId: c.userId, tokenId: c.tokenId, tokenLimited: true, amount: 3000, now: me.startedAt - 100 })).toEqual({ ok: true, amount: 3000 });
      // A node that died: its lease ran out. A live node: its lease is current.
      const dead = new Ledger(ctx.db, 'dead-node', 5);
      expect((await dead.reserve({ requestId: 'dead-1', userId: c.userId, tokenId: c.tokenId, tokenLimited: true, amount: 1000, now: now - 60 })).ok).toBe(true);
      const live = new Ledger(ctx.db, 'live-node', 60);
      expect((await live.reserve({ requestId: 'live-1', userId: c.userId, tokenId: c.tokenId, tokenLimited: true, amount: 2000, now })).ok).toBe(true);
      expect((await balances(h, c)).quota).toBe(4000);
      expect(await me.recover()).toBe(2);
      expect(await me.recover()).toBe(0);
      expect((await balances(h, c)).quota).toBe(8000);
      expect(await live.settle({ requestId: 'live-1', userId: c.userId, tokenId: c.tokenId, tokenLimited: true, reserved: 2000, charge: 1500, channelId: 0, responseTimeMs: 1, log: null })).toEqual({ charged: 1500, duplicate: false });
      const after = await balances(h, c);
      expect(after).toMatchObject({ quota: 8500, remain: 8500, userUsed: 1500, tokenUsed: 1500 });
      expect((await reconcile(ctx.db.db)).ok).toBe(true);
    });

    it('a settle after recovery released the reservation charges afresh (never free, never double)', async () => {
      const c = await addCaller(h, { quota: 10_000, remain: 10_000 });
      const ctx = h.server.ctx;
      const dead = new Ledger(ctx.db, 'slow-node', 5);
      const now = Math.floor(Date.now() / 1000);
      expect(await dead.reserve({ requestId: 'slow-1', userId: c.userId, tokenId: c.tokenId, tokenLimited: true, amount: 500, now: now - 60 })).toEqual({ ok: true, amount: 500 });
      expect(await ctx.relay.ledger.recover()).toBe(1);
      const settled = await dead.settle({ requestId: 'slow-1', userId: c.userId, tokenId: c.tokenId, tokenLimited: true, reserved: 500, charge: 300, channelId: 0, responseTimeMs: 1, log: null });
      expect(settled).toEqual({ charged: 300, duplicate: false });
      expect(await balances(h, c)).toMatchObject({ quota: 9700, remain: 9700, userUsed: 300, tokenUsed: 300 });
      expect((await reconcile(ctx.db.db)).ok).toBe(true);
    });

    it('an overrun the user cannot cover takes the balance to zero, not below, and logs the shortfall', async () => {
      const c = await addCaller(h, { quota: 1000, remain: 1000 });
      const ledger = h.server.ctx.relay.ledger;
      const now = Math.floor(Date.now() / 1000);
      await ledger.reserve({ requestId: 'over-1', userId: c.userId, tokenId: c.tokenId, tokenLimited: true, amount: 400, now });
      let shortfallSeen = -1;
      const { charged } = await ledger.settle({
        requestId: 'over-1', userId: c.userId, tokenId: c.tokenId, tokenLimited: true, reserved: 400, charge: 5000, channelId: 0, responseTimeMs: 1,
        log: (q, shortfall) => {
          shortfallSeen = shortfall;
          return { user_id: c.userId, created_at: now, type: 2, content: '', username: 'x', token_name: 't', model_name: 'm', quota: q, prompt_tokens: 0, completion_tokens: 0, use_time: 0, is_stream: 0, channel_id: 0, token_id: c.tokenId, group: 'default', other: '{}', request_id: 'over-1' };
        },
      });
      expect(charged).toBe(1000);
      expect(shortfallSeen).toBe(4000);
      const after = await balances(h, c);
      expect(after.quota).toBe(0);
      expect(after.remain).toBe(0);
      expect(Number((await consumeLogs(h, c.userId))[0]!.quota)).toBe(1000);
    });
  });

  describe('dashboard billing', () => {
    it('reports the token limit and usage like the reference', async () => {
      const c = await addCaller(h, { remain: 250_000 });
      await c.client.chat.completions.create({ model: 'gpt-4', messages });
      const sub = await (await fetch(`${h.server.url}/v1/dashboard/billing/subscription`, { headers: { authorization: `Bearer sk-${c.key}` } })).json();
      expect(sub).toMatchObject({ object: 'billing_subscription', hard_limit_usd: 0.5, access_until: 0 });
      const usage = (await (await fetch(`${h.server.url}/dashboard/billing/usage`, { headers: { authorization: `Bearer sk-${c.key}` } })).json()) as { total_usage: number };
      // One gpt-4 call (3 prompt, 5 completion tokens) in cents of a dollar at QuotaPerUnit 500 000.
      expect(usage.total_usage).toBeCloseTo((expectedCharge({ model: 'gpt-4' }, { prompt: 3, completion: 5 }) / 500_000) * 100);
    });
  });
});
