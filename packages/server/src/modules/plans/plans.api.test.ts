import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomAlnum } from '../users/password.js';
import { ApiClient, newUser } from '../../test-support/api-client.js';
import { addChannel, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { timeTravelWindows, windowCounter } from '../../test-support/windows.js';

/**
 * Plans (docs/ledger.md "Windows and plans"): admins sell and grant them; users buy, renew and
 * cancel them from the wallet (through the ledger); a subscription's allowance pays for requests
 * before the wallet, usage beyond falls through or is refused per plan, refunds go back where they
 * came from, and subscriptions end or renew at their expiry.
 */
const messages = [{ role: 'user', content: 'Hello there' }];

interface Member {
  id: number;
  api: ApiClient;
  key: string;
}

describe.each(testDbKinds())('plans on %s', (kind) => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini,gpt-4o' });
  });
  afterAll(() => h.close());

  /** A signed-up user with `quota` in the wallet (an admin's top-up) and an unlimited API key. */
  async function member(quota: number): Promise<Member> {
    const username = `p${randomAlnum(8).toLowerCase()}`;
    const api = await newUser(h.server.url, username);
    const id = api.userId!;
    expect((await h.root.put('/api/user/', { id, quota })).body.success).toBe(true);
    const created = await api.post('/api/token/', { name: 'k', unlimited_quota: true, expired_time: -1 });
    expect(created.body.success).toBe(true);
    return { id, api, key: created.body.data.key as string };
  }

  async function plan(fields: Record<string, unknown>): Promise<number> {
    const r = await h.root.post('/api/plan/', { name: `plan-${randomAlnum(5)}`, price: 100_000, duration_days: 30, allowances: { day: { requests: 2 } }, ...fields });
    expect(r.body.success, r.body.message).toBe(true);
    return r.body.data.id as number;
  }

  async function chat(key: string, model = 'gpt-4o-mini') {
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json', 'accept-language': 'en' },
      body: JSON.stringify({ model, messages, max_tokens: 20 }),
    });
    return { status: res.status, body: await res.text() };
  }

  async function wallet(id: number) {
    const u = await h.server.ctx.db.db.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', id).executeTakeFirstOrThrow();
    return { quota: Number(u.quota), used: Number(u.used_quota), requests: Number(u.request_count) };
  }

  async function logs(id: number) {
    const rows = await h.server.ctx.logDb.db.selectFrom('logs').select(['quota', 'other']).where('user_id', '=', id).where('type', '=', 2).orderBy('id').execute();
    return rows.map((r) => ({ quota: Number(r.quota), other: JSON.parse(r.other) as Record<string, unknown> }));
  }

  it('a user buys a plan from the wallet; its allowance pays for requests first, then the wallet (fall-through); the log says who paid', async () => {
    const m = await member(1_000_000);
    const planId = await plan({ price: 300_000, allowances: { day: { requests: 2 } } });
    const bought = await m.api.post('/api/user/plan/buy', { plan_id: planId });
    expect(bought.body.success, bought.body.message).toBe(true);
    const sub = bought.body.data as { id: number; status: number; expires_at: number; starts_at: number; meters: unknown[] };
    expect(sub.status).toBe(1);
    expect(sub.expires_at - sub.starts_at).toBe(30 * 86_400);
    expect(sub.meters).toEqual([{ scope: 'plan', id: sub.id, name: expect.any(String), window: 'day', quota_limit: 0, quota_used: 0, requests_limit: 2, requests_used: 0, refill_at: expect.any(Number) }]);
    expect(await wallet(m.id)).toMatchObject({ quota: 700_000 });
    const entry = await h.server.ctx.db.db.selectFrom('ledger_entries').selectAll().where('user_id', '=', m.id).where('kind', '=', 'plan').execute();
    expect(entry.map((e) => [Number(e.quota_delta), e.ref])).toEqual([[-300_000, `plan:${sub.id}:0`]]);

    for (let i = 0; i < 3; i++) expect((await chat(m.key)).status).toBe(200);
    const rows = await logs(m.id);
    expect(rows.map((r) => r.other.billing_source)).toEqual(['plan', 'plan', 'wallet']);
    expect(rows[0]!.other).toMatchObject({ plan_id: sub.id });
    const planPaid = rows[0]!.quota + rows[1]!.quota;
    // The wallet paid only the third; used_quota counts all three.
    expect(await wallet(m.id)).toEqual({ quota: 700_000 - rows[2]!.quota, used: planPaid + rows[2]!.quota, requests: 3 });
    expect(await windowCounter(h, `s${sub.id}`, 'day')).toMatchObject({ quota_used: planPaid, requests_used: 2 });
    // The meters move on /api/user/self and in the wallet's list.
    const self = (await m.api.get('/api/user/self')).body.data as { windows: Array<{ scope: string; requests_used: number }> };
    expect(self.windows).toEqual([expect.objectContaining({ scope: 'plan', id: sub.id, window: 'day', requests_used: 2, quota_used: planPaid })]);
    // And on the key-usage endpoints.
    const usage = await fetch(`${h.server.url}/v1/dashboard/billing/usage`, { headers: { authorization: `Bearer sk-${m.key}` } });
    expect(((await usage.json()) as { windows: unknown[] }).windows).toEqual([expect.objectContaining({ scope: 'plan', requests_used: 2 })]);
  });

  it('a plan that refuses usage beyond it answers 429 naming the plan, the window and its refill time', async () => {
    const m = await member(1_000_000);
    const planId = await plan({ name: 'Team daily', price: 0, fall_through: false, allowances: { day: { requests: 1 }, '5h': { quota: 10_000_000 } } });
    expect((await m.api.post('/api/user/plan/buy', { plan_id: planId })).body.success).toBe(true);
    expect((await chat(m.key)).status).toBe(200);
    const refused = await chat(m.key);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toMatch(/^Plan "Team daily" has used up its daily request allowance \(1\); it refills at \d{4}-\d\d-\d\d 00:00 \(/);
    expect(await wallet(m.id)).toMatchObject({ quota: 1_000_000 });
  });

  it('several plans are drawn in the stated order; the order can be changed; restricted plans pay only for their models', async () => {
    const m = await member(1_000_000);
    const a = await plan({ name: 'A', price: 0, allowances: { day: { requests: 1 } } });
    const b = await plan({ name: 'B', price: 0, allowances: { week: { requests: 5 } } });
    const onlyGpt4o = await plan({ name: 'C', price: 0, models: 'gpt-4o', allowances: { month: { requests: 5 } } });
    const subA = (await m.api.post('/api/user/plan/buy', { plan_id: a })).body.data.id as number;
    const subB = (await m.api.post('/api/user/plan/buy', { plan_id: b })).body.data.id as number;
    const subC = (await m.api.post('/api/user/plan/buy', { plan_id: onlyGpt4o })).body.data.id as number;
    // C first: it does not cover gpt-4o-mini, so B pays.
    expect((await m.api.put('/api/user/plan/order', { ids: [subC, subB, subA] })).body.success).toBe(true);
    expect((await chat(m.key)).status).toBe(200);
    expect((await chat(m.key, 'gpt-4o')).status).toBe(200);
    const list = (await m.api.get('/api/user/plan/')).body.data as Array<{ id: number; priority: number; meters: Array<{ requests_used: number }> }>;
    expect(list.map((s) => s.id)).toEqual([subC, subB, subA]);
    expect(list.map((s) => s.meters[0]!.requests_used)).toEqual([1, 1, 0]);
    expect((await logs(m.id)).map((r) => r.other.plan_id)).toEqual([subB, subC]);
    // An order that leaves one out, repeats one or names another user's is refused.
    for (const ids of [[subC, subB], [subC, subB, subB], [subC, subB, subA, 999_999]]) {
      expect((await m.api.put('/api/user/plan/order', { ids })).body).toMatchObject({ success: false });
    }
    expect(await wallet(m.id)).toMatchObject({ quota: 1_000_000 });
  });

  it('a request whose upstream fails gives the plan back what it held (a refund goes back where it came from)', async () => {
    const m = await member(1_000_000);
    const planId = await plan({ price: 0, allowances: { day: { quota: 5_000_000, requests: 3 } } });
    const sub = (await m.api.post('/api/user/plan/buy', { plan_id: planId })).body.data.id as number;
    h.fake.setFault({ status: 500 });
    try {
      expect((await chat(m.key)).status).toBe(500);
    } finally {
      h.fake.setFault(null);
    }
    expect(await windowCounter(h, `s${sub}`, 'day')).toMatchObject({ quota_used: 0, requests_used: 0 });
    expect(await wallet(m.id)).toMatchObject({ quota: 1_000_000, used: 0 });
  });

  it('renewal extends from the end and is paid once per click; expiry ends a plan, auto-renewal renews it from the wallet or ends it when the wallet is short', async () => {
    const m = await member(1_000_000);
    const planId = await plan({ price: 200_000, duration_days: 7 });
    const sub = (await m.api.post('/api/user/plan/buy', { plan_id: planId })).body.data as { id: number; expires_at: number };
    const renewed = await m.api.post('/api/user/plan/renew', { id: sub.id });
    expect(renewed.body.data.expires_at).toBe(sub.expires_at + 7 * 86_400);
    expect(await wallet(m.id)).toMatchObject({ quota: 600_000 });
    // Its end comes (the stored end moves into the past): without auto-renewal it ends.
    const db = h.server.ctx.db.db;
    await db.updateTable('user_plans').set({ expires_at: Math.floor(Date.now() / 1000) - 5 }).where('id', '=', sub.id).execute();
    // The relay stops drawing on it at once, before the job has run.
    h.server.ctx.relay.auth.invalidateUser(m.id);
    expect((await chat(m.key)).status).toBe(200);
    expect((await logs(m.id)).at(-1)!.other.billing_source).toBe('wallet');
    expect(await h.server.ctx.plans.expireDue()).toMatchObject({ expired: 1 });
    expect((await m.api.get('/api/user/plan/')).body.data[0]).toMatchObject({ id: sub.id, status: 3 });
    expect((await m.api.post('/api/user/plan/renew', { id: sub.id })).body).toMatchObject({ success: false });

    // Auto-renewal: renewed from its end, paid from the wallet.
    const again = (await m.api.post('/api/user/plan/buy', { plan_id: planId })).body.data as { id: number };
    expect((await m.api.put('/api/user/plan/settings', { id: again.id, auto_renew: true })).body.data.auto_renew).toBe(true);
    const end = Math.floor(Date.now() / 1000) - 10;
    await db.updateTable('user_plans').set({ expires_at: end }).where('id', '=', again.id).execute();
    const before = (await wallet(m.id)).quota;
    expect(await h.server.ctx.plans.expireDue()).toMatchObject({ renewed: 1 });
    const row = await db.selectFrom('user_plans').selectAll().where('id', '=', again.id).executeTakeFirstOrThrow();
    expect([Number(row.status), Number(row.expires_at), Number(row.renewals)]).toEqual([1, end + 7 * 86_400, 1]);
    expect((await wallet(m.id)).quota).toBe(before - 200_000);
    // The wallet cannot pay the next one: it ends.
    expect((await h.root.put('/api/user/', { id: m.id, quota: 1000 })).body.success).toBe(true);
    await db.updateTable('user_plans').set({ expires_at: end }).where('id', '=', again.id).execute();
    expect(await h.server.ctx.plans.expireDue()).toMatchObject({ expired: 1 });
    expect(await wallet(m.id)).toMatchObject({ quota: 1000 });
  });

  it('a purchase the wallet cannot pay moves nothing and says both amounts; a plan off sale cannot be bought; cancelling ends it without a refund', async () => {
    const m = await member(50_000);
    const planId = await plan({ price: 100_000 });
    const short = await m.api.post('/api/user/plan/buy', { plan_id: planId });
    expect(short.body).toMatchObject({ success: false });
    expect(short.body.message).toMatch(/\$0\.20.*\$0\.10|0\.2.*0\.1/);
    expect((await m.api.get('/api/user/plan/')).body.data).toEqual([]);
    expect(await wallet(m.id)).toMatchObject({ quota: 50_000 });
    const off = await plan({ price: 0, status: 2 });
    expect((await m.api.post('/api/user/plan/buy', { plan_id: off })).body).toMatchObject({ success: false });
    expect(((await m.api.get('/api/user/plan/available')).body.data as Array<{ id: number }>).map((p) => p.id)).not.toContain(off);
    const free = await plan({ price: 0 });
    const sub = (await m.api.post('/api/user/plan/buy', { plan_id: free })).body.data.id as number;
    expect((await m.api.post('/api/user/plan/cancel', { id: sub })).body.success).toBe(true);
    expect((await m.api.post('/api/user/plan/cancel', { id: sub })).body).toMatchObject({ success: false });
    expect((await m.api.get('/api/user/plan/')).body.data[0]).toMatchObject({ id: sub, status: 2 });
  });

  it('concurrent purchases against a balance for one buy exactly one plan', async () => {
    const m = await member(300_000);
    const planId = await plan({ price: 300_000 });
    const results = await Promise.all(Array.from({ length: 6 }, () => m.api.post('/api/user/plan/buy', { plan_id: planId })));
    expect(results.filter((r) => r.body.success)).toHaveLength(1);
    expect((await m.api.get('/api/user/plan/')).body.data).toHaveLength(1);
    expect(await wallet(m.id)).toMatchObject({ quota: 0 });
  });

  it("another user's subscription cannot be seen, renewed, cancelled or reordered; plan admin routes refuse users", async () => {
    const owner = await member(1_000_000);
    const thief = await member(1_000_000);
    const planId = await plan({ price: 0, duration_days: 3 });
    const sub = (await owner.api.post('/api/user/plan/buy', { plan_id: planId })).body.data.id as number;
    for (const [path, body] of [
      ['/api/user/plan/renew', { id: sub }],
      ['/api/user/plan/cancel', { id: sub }],
    ] as const) {
      expect((await thief.api.post(path, body)).body).toMatchObject({ success: false });
    }
    expect((await thief.api.put('/api/user/plan/settings', { id: sub, auto_renew: true })).body).toMatchObject({ success: false });
    expect((await thief.api.put('/api/user/plan/order', { ids: [sub] })).body).toMatchObject({ success: false });
    expect((await thief.api.get('/api/user/plan/')).body.data).toEqual([]);
    expect((await thief.api.post('/api/plan/', { name: 'x', allowances: { day: { requests: 1 } } })).body).toMatchObject({ success: false });
    expect((await thief.api.post('/api/plan/grant', { user_id: thief.id, plan_id: planId })).body).toMatchObject({ success: false });
    expect((await owner.api.get('/api/user/plan/')).body.data[0]).toMatchObject({ id: sub, status: 1, auto_renew: false });
  });

  it('admins create, edit and delete plans (validated), grant one free of charge and revoke it; bought subscriptions keep their terms', async () => {
    for (const bad of [{ name: '' }, { allowances: {} }, { allowances: { day: { quota: -1 } } }, { price: -5 }, { duration_days: 100_000 }]) {
      const r = await h.root.post('/api/plan/', { name: 'ok', allowances: { day: { requests: 1 } }, ...bad });
      expect(r.body.success, JSON.stringify(bad)).toBe(false);
    }
    const planId = await plan({ price: 5_000, allowances: { day: { requests: 4 } } });
    const m = await member(10_000);
    const granted = await h.root.post('/api/plan/grant', { user_id: m.id, plan_id: planId });
    expect(granted.body.data).toMatchObject({ plan_id: planId, status: 1, granted_by: 1 });
    expect(await wallet(m.id)).toMatchObject({ quota: 10_000 });
    const edited = await h.root.put('/api/plan/', { id: planId, allowances: { day: { requests: 9 } }, price: 1 });
    expect(edited.body.data).toMatchObject({ price: 1, allowances: { day: { quota: 0, requests: 9 } }, active_subscriptions: 1 });
    const subs = (await h.root.get(`/api/plan/subscriptions?user_id=${m.id}`)).body.data as Array<{ id: number; allowances: unknown; price: number }>;
    expect(subs[0]).toMatchObject({ allowances: { day: { quota: 0, requests: 4 } }, price: 5_000 });
    expect((await h.root.post('/api/plan/revoke', { id: subs[0]!.id })).body.success).toBe(true);
    expect((await h.root.del(`/api/plan/${planId}`)).body.success).toBe(true);
    expect((await h.root.del(`/api/plan/${planId}`)).body).toMatchObject({ success: false });
    // Recorded in the audit log.
    const audit = await h.server.ctx.logDb.db.selectFrom('audit_logs').select('action').where('action', 'like', 'plan.%').execute();
    expect(new Set(audit.map((a) => a.action))).toEqual(new Set(['plan.create', 'plan.update', 'plan.grant', 'plan.revoke', 'plan.delete']));
  });

  it('a 5-hour plan window refills after five hours', async () => {
    const m = await member(0);
    const planId = await plan({ price: 0, fall_through: false, allowances: { '5h': { requests: 1 } } });
    const sub = (await m.api.post('/api/user/plan/buy', { plan_id: planId })).body.data.id as number;
    expect((await chat(m.key)).status).toBe(200);
    expect((await chat(m.key)).status).toBe(429);
    await timeTravelWindows(h, `s${sub}`, 5 * 3600);
    expect((await chat(m.key)).status).toBe(200);
    expect(await wallet(m.id)).toMatchObject({ quota: 0, requests: 2 });
  });
});
