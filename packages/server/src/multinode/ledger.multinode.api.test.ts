import { expectedChatUsage, startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../test-support/api-client.js';
import { multiNodeDbKinds, startCluster, type NodeProcess, type TestCluster } from '../test-support/multinode.js';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addChannel } from '../test-support/relay-fixtures.js';

/**
 * Money on two real server processes over one database and Redis (docs/ledger.md): a balance is
 * shared exactly by both nodes, and a node killed mid-stream neither loses nor doubles money —
 * the survivor's streams are charged, the dead node's reservations are released once its lease
 * runs out, and the ledger reconciles.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kinds = process.env.TEST_REDIS_URL ? multiNodeDbKinds() : [];
const cases = kinds.length ? kinds : (['postgres'] as const);
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const usage = expectedChatUsage({ messages, max_tokens: 5 });
/** gpt-4: ratio 15, completion ratio 2. */
const COST = expectedCharge({ model: 'gpt-4' }, { prompt: usage.prompt_tokens, completion: usage.completion_tokens });
const LEASE_SEC = 8;

describe.skipIf(!kinds.length).each(cases)('money on two nodes on %s + Redis', (kind) => {
  let cluster: TestCluster;
  let fast: FakeOpenAI;
  let slow: FakeOpenAI;
  let a: NodeProcess;
  let b: NodeProcess;
  let root: ApiClient;

  beforeAll(async () => {
    fast = await startFakeOpenAI();
    slow = await startFakeOpenAI({ chunkCount: 60, chunkDelayMs: 50 });
    cluster = await startCluster({ kind, nodes: [{ nodeType: 'master' }, { nodeType: 'slave' }], env: { SYNC_FREQUENCY: '600', LEDGER_LEASE_SEC: String(LEASE_SEC) } });
    [a, b] = cluster.nodes as [NodeProcess, NodeProcess];
    root = await rootClient(a.url);
    await addChannel(root, { name: 'fast', base_url: fast.url, models: 'gpt-4' });
    await addChannel(root, { name: 'slow', base_url: slow.url, models: 'gpt-4o-mini' });
  });
  afterAll(async () => {
    await cluster?.close();
    await fast?.close();
    await slow?.close();
  });

  /** A user funded with `quota` through the admin API (a ledger movement) and an unlimited token of theirs. */
  async function funded(quota: number): Promise<{ id: number; key: string; api: ApiClient }> {
    const username = `m${Math.random().toString(36).slice(2, 10)}`;
    expect((await root.post('/api/user/', { username, password: 'password123' })).body.success).toBe(true);
    const found = await root.get(`/api/user/search?keyword=${username}`);
    const id = Number((found.body.data.items ?? found.body.data)[0].id);
    expect((await root.put('/api/user/', { id, quota })).body.success).toBe(true);
    const api = new ApiClient(b.url);
    await api.login(username, 'password123');
    const created = await api.post('/api/token/', { name: 'mn', unlimited_quota: true, expired_time: -1 });
    expect(created.body.success).toBe(true);
    return { id, key: created.body.data.key as string, api };
  }

  async function self(api: ApiClient) {
    const me = (await api.get('/api/user/self')).body.data as { quota: number; used_quota: number };
    return { quota: Number(me.quota), used: Number(me.used_quota) };
  }

  async function logged(userId: number, via: ApiClient = root): Promise<{ n: number; sum: number }> {
    const r = await via.get(`/api/log/?p=1&page_size=100&type=2&username=`);
    const items = (r.body.data.items as Array<{ user_id: number; quota: number }>).filter((l) => Number(l.user_id) === userId);
    return { n: items.length, sum: items.reduce((s, l) => s + Number(l.quota), 0) };
  }

  it('100 requests split over both nodes against a balance for 10: never overdrawn, exact, reconciled', async () => {
    const u = await funded(10 * COST);
    const call = (node: NodeProcess) =>
      fetch(`${node.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${u.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4', messages, max_tokens: 5 }),
      }).then(async (r) => (await r.arrayBuffer(), r.status));
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => call(i % 2 ? a : b)));
    for (const s of statuses) expect([200, 400, 401, 403]).toContain(s);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThan(0);
    const after = await self(u.api);
    const logs = await logged(u.id);
    expect(logs.n).toBe(ok);
    expect(logs.sum).toBeLessThanOrEqual(10 * COST);
    expect(10 * COST - after.quota).toBe(logs.sum);
    expect(after.used).toBe(logs.sum);
    expect(after.quota).toBeGreaterThanOrEqual(0);
    const check = await root.get('/api/ledger/check');
    expect(check.body.data).toMatchObject({ ok: true });
  });

  it('SIGKILL of node A mid-stream: B\'s streams finish and are charged, A\'s reservations are released after the lease, the ledger reconciles', async () => {
    const u = await funded(50_000_000);
    const stream = (node: NodeProcess) =>
      fetch(`${node.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${u.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true }),
      });
    const onA = await Promise.all(Array.from({ length: 4 }, () => stream(a)));
    const onB = Array.from({ length: 4 }, () => stream(b).then((r) => r.text()));
    // A's streams are under way (their first bytes arrived): now A dies.
    for (const r of onA) {
      const reader = r.body!.getReader();
      await reader.read();
      void reader.cancel().catch(() => undefined);
    }
    a.kill('SIGKILL');
    await a.exited;
    const rootB = await rootClient(b.url);
    // A's four reservations outlive it (its lease has not run out yet), beside B's own in flight.
    expect(Number((await rootB.get('/api/ledger/check')).body.data.requests.open)).toBeGreaterThanOrEqual(4);
    const bodies = await Promise.all(onB);
    for (const body of bodies) expect(body.trim().endsWith('data: [DONE]')).toBe(true);
    // Before the lease runs out A's reservations are still held; afterwards B's sweep releases them.
    let open = -1;
    for (let i = 0; i < 120; i++) {
      const r = await rootB.get('/api/ledger/check');
      open = Number(r.body.data.requests.open);
      if (open === 0) {
        expect(r.body.data.ok).toBe(true);
        break;
      }
      await sleep(250);
    }
    expect(open).toBe(0);
    const after = await self(u.api);
    const logs = await logged(u.id, rootB);
    expect(logs.n).toBe(4);
    expect(50_000_000 - after.quota).toBe(logs.sum);
    expect(after.used).toBe(logs.sum);
  }, 90_000);
});
