import { expectedChatUsage, startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../test-support/api-client.js';
import { expectedCharge } from '../test-support/expected-charge.js';
import { multiNodeDbKinds, startCluster, type NodeProcess, type TestCluster } from '../test-support/multinode.js';
import { addChannel } from '../test-support/relay-fixtures.js';

/**
 * A per-token daily cap on two real server processes over one database and Redis (docs/ledger.md
 * "Windows and plans"): 100 concurrent requests split over both nodes never overrun the window
 * (the counter is moved in the reservation's own transaction, under its row lock) and never count
 * one twice; what the window holds afterwards is exactly what was charged, and the ledger reconciles.
 */
const kinds = process.env.TEST_REDIS_URL ? multiNodeDbKinds() : [];
const cases = kinds.length ? kinds : (['postgres'] as const);
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const usage = expectedChatUsage({ messages, max_tokens: 5 });
/** gpt-4: ratio 15, completion ratio 2. */
const COST = expectedCharge({ model: 'gpt-4' }, { prompt: usage.prompt_tokens, completion: usage.completion_tokens });

describe.skipIf(!kinds.length).each(cases)('windows on two nodes on %s + Redis', (kind) => {
  let cluster: TestCluster;
  let fake: FakeOpenAI;
  let a: NodeProcess;
  let b: NodeProcess;
  let root: ApiClient;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ chunkDelayMs: 5 });
    cluster = await startCluster({ kind, nodes: [{ nodeType: 'master' }, { nodeType: 'slave' }], env: { SYNC_FREQUENCY: '600' } });
    [a, b] = cluster.nodes as [NodeProcess, NodeProcess];
    root = await rootClient(a.url);
    await addChannel(root, { base_url: fake.url, models: 'gpt-4' });
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
    await fake?.close();
  });

  /** A funded user (on node B) with an unlimited key capped per day. */
  async function capped(limits: Record<string, unknown>): Promise<{ id: number; key: string; tokenId: number; api: ApiClient }> {
    const username = `w${Math.random().toString(36).slice(2, 10)}`;
    expect((await root.post('/api/user/', { username, password: 'password123' })).body.success).toBe(true);
    const found = await root.get(`/api/user/search?keyword=${username}`);
    const id = Number((found.body.data.items ?? found.body.data)[0].id);
    expect((await root.put('/api/user/', { id, quota: 100_000_000 })).body.success).toBe(true);
    const api = new ApiClient(b.url);
    await api.login(username, 'password123');
    const created = await api.post('/api/token/', { name: 'capped', unlimited_quota: true, expired_time: -1, period_limits: limits });
    expect(created.body.success, created.body.message).toBe(true);
    return { id, key: created.body.data.key as string, tokenId: created.body.data.id as number, api };
  }

  const call = (node: NodeProcess, key: string) =>
    fetch(`${node.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4', messages, max_tokens: 5 }),
    }).then(async (r) => ({ status: r.status, body: await r.text() }));

  async function logged(userId: number): Promise<{ n: number; sum: number }> {
    const r = await root.get(`/api/log/?p=1&page_size=100&type=2&username=`);
    const items = (r.body.data.items as Array<{ user_id: number; quota: number }>).filter((l) => Number(l.user_id) === userId);
    return { n: items.length, sum: items.reduce((s, l) => s + Number(l.quota), 0) };
  }

  async function tokenMeter(api: ApiClient, tokenId: number) {
    const windows = (await api.get('/api/user/windows')).body.data as Array<{ scope: string; id: number; window: string; quota_used: number; requests_used: number }>;
    return windows.find((w) => w.scope === 'token' && w.id === tokenId && w.window === 'day')!;
  }

  it('100 concurrent requests over both nodes against a daily cap of 30 requests: exactly 30 served, counted once', async () => {
    const u = await capped({ day: { requests: 30 } });
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => call(i % 2 ? a : b, u.key)));
    const statuses = results.map((r) => r.status);
    for (const s of statuses) expect([200, 429]).toContain(s);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    const refusal = JSON.parse(results.find((r) => r.status === 429)!.body) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe('period_limit_exceeded');
    expect(refusal.error.message).toMatch(/daily/);
    const logs = await logged(u.id);
    expect(logs.n).toBe(30);
    expect(await tokenMeter(u.api, u.tokenId)).toMatchObject({ requests_used: 30, quota_used: logs.sum });
    const check = await root.get('/api/ledger/check');
    expect(check.body.data).toMatchObject({ ok: true });
  }, 60_000);

  it('100 concurrent requests over both nodes against a daily quota cap: never more than the cap held or charged, the counter equals the charges', async () => {
    const cap = 12 * COST;
    const u = await capped({ day: { quota: cap } });
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => call(i % 2 ? a : b, u.key)));
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThan(0);
    for (const r of results) expect([200, 429]).toContain(r.status);
    const logs = await logged(u.id);
    expect(logs.n).toBe(ok);
    expect(logs.sum).toBeLessThanOrEqual(cap);
    const meter = await tokenMeter(u.api, u.tokenId);
    expect(meter).toMatchObject({ requests_used: ok, quota_used: logs.sum });
    const me = (await u.api.get('/api/user/self')).body.data as { quota: number; used_quota: number };
    expect(100_000_000 - Number(me.quota)).toBe(logs.sum);
    const check = await root.get('/api/ledger/check');
    expect(check.body.data).toMatchObject({ ok: true });
  }, 60_000);
});
