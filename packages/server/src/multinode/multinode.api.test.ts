import { startFakeOpenAI, startFakeSmtp, type FakeOpenAI, type FakeSmtp } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../test-support/api-client.js';
import { createTestDatabase } from '../test-support/test-db.js';
import { isolatedRedisUrl, multiNodeDbKinds, startCluster, startNode, within, type NodeProcess, type TestCluster } from '../test-support/multinode.js';
import { addChannel } from '../test-support/relay-fixtures.js';

/**
 * Two real server processes over one database and one Redis (docs/architecture.md#several-nodes):
 * whatever one node writes is in force on the other within a second, codes made on one are
 * accepted once on the other, and one node runs each background job.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kinds = process.env.TEST_REDIS_URL ? multiNodeDbKinds() : [];
// describe.each needs one case even when the suite is skipped.
const cases = kinds.length ? kinds : (['postgres'] as const);
// Long enough that nothing in these tests converges through the cache TTL: only invalidation can.
const SYNC_FREQUENCY = '600';

/** One chat request; a distinct `content` is a distinct conversation (channel affinity binds a repeated prompt to one channel). */
async function chat(node: NodeProcess, key: string, content = 'hi'): Promise<number> {
  const res = await fetch(`${node.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return res.status;
}

describe.skipIf(!kinds.length).each(cases)('two nodes on %s + Redis', (kind) => {
  let cluster: TestCluster;
  let fake: FakeOpenAI;
  let smtp: FakeSmtp;
  let a: NodeProcess;
  let b: NodeProcess;
  let rootA: ApiClient;
  let rootB: ApiClient;
  let token: { id: number; key: string };
  let ch1: number;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    smtp = await startFakeSmtp({ users: { 'mailer@example.com': 'smtp-pass' } });
    cluster = await startCluster({ kind, nodes: [{ nodeType: 'master' }, { nodeType: 'slave' }], env: { SYNC_FREQUENCY } });
    [a, b] = cluster.nodes as [NodeProcess, NodeProcess];
    rootA = await rootClient(a.url);
    rootB = await rootClient(b.url);
    ch1 = await addChannel(rootA, { name: 'one', key: 'sk-one', base_url: fake.url });
    await addChannel(rootA, { name: 'two', key: 'sk-two', base_url: fake.url });
    const created = await rootA.post('/api/token/', { name: 'multinode', unlimited_quota: true, expired_time: -1 });
    expect(created.body.success).toBe(true);
    token = { id: created.body.data.id, key: created.body.data.key };
  });
  afterAll(async () => {
    await cluster?.close();
    await fake?.close();
    await smtp?.close();
  });

  it('refuses on B, within one second, a token disabled on A', async () => {
    expect(await chat(b, token.key)).toBe(200);
    expect(await chat(a, token.key)).toBe(200);
    const off = await rootA.put('/api/token/?status_only=true', { id: token.id, status: 2 });
    expect(off.body.success).toBe(true);
    expect(await within(1000, async () => (await chat(b, token.key)) === 401)).toBeLessThanOrEqual(1000);
    const on = await rootB.put('/api/token/?status_only=true', { id: token.id, status: 1 });
    expect(on.body.success).toBe(true);
    expect(await within(1000, async () => (await chat(a, token.key)) === 200)).toBeLessThanOrEqual(1000);
  });

  it('stops selecting on B a channel disabled on A', async () => {
    const keysUsed = async (node: NodeProcess, n: number) => {
      const from = fake.requests.length;
      // Each a new conversation, so the weights (not affinity) pick the channel.
      for (let i = 0; i < n; i++) expect(await chat(node, token.key, `hi ${from + i}`)).toBe(200);
      return new Set(fake.requests.slice(from).map((r) => r.headers.authorization));
    };
    expect(await keysUsed(b, 30)).toEqual(new Set(['Bearer sk-one', 'Bearer sk-two']));
    const off = await rootA.put('/api/channel/', { id: ch1, status: 2 });
    expect(off.body.success).toBe(true);
    await sleep(1000);
    expect(await keysUsed(b, 20)).toEqual(new Set(['Bearer sk-two']));
    expect(await keysUsed(a, 10)).toEqual(new Set(['Bearer sk-two']));
  });

  it('shows on B, within one second, an option saved on A', async () => {
    const notice = `notice-${Date.now()}`;
    expect((await rootA.put('/api/option/', { key: 'Notice', value: notice })).body.success).toBe(true);
    const anon = new ApiClient(b.url);
    expect(await within(1000, async () => (await anon.get('/api/notice')).body.data === notice)).toBeLessThanOrEqual(1000);
  });

  it('accepts on B a verification code mailed by A, exactly once when both nodes race for it', async () => {
    const options = {
      SMTPServer: '127.0.0.1',
      SMTPPort: String(smtp.port),
      SMTPAccount: 'mailer@example.com',
      SMTPToken: 'smtp-pass',
      SMTPFrom: 'noreply@example.com',
      EmailVerificationEnabled: 'true',
    };
    for (const [key, value] of Object.entries(options)) expect((await rootA.put('/api/option/', { key, value })).body.success).toBe(true);
    expect(await within(1000, async () => (await new ApiClient(b.url).get('/api/status')).body.data.email_verification === true)).toBeLessThanOrEqual(1000);

    const mailCode = async (email: string) => {
      expect((await new ApiClient(a.url).get(`/api/verification?email=${encodeURIComponent(email)}`)).body.success).toBe(true);
      const mail = await smtp.waitFor((m) => m.to.includes(email));
      return /<strong>([0-9a-f]{6})<\/strong>/.exec(mail.html)![1]!;
    };
    const register = (node: NodeProcess, username: string, email: string, code: string) =>
      new ApiClient(node.url).post('/api/user/register', { username, password: 'password123', email, verification_code: code });

    const code = await mailCode('first@example.com');
    expect((await register(b, 'firstuser', 'first@example.com', 'ffffff')).body.success).toBe(false);
    expect((await register(b, 'firstuser', 'first@example.com', code)).body.success).toBe(true);
    expect((await register(a, 'firstagain', 'first@example.com', code)).body.success).toBe(false);

    const raced = await mailCode('race@example.com');
    const results = await Promise.all([register(a, 'racea', 'race@example.com', raced), register(b, 'raceb', 'race@example.com', raced)]);
    expect(results.map((r) => r.body.success).sort()).toEqual([false, true]);
    expect(results.find((r) => !r.body.success)!.body.message).toMatch(/verification code/i);
  });
});

describe.skipIf(!kinds.length).each(cases)('background jobs on two masters on %s + Redis', (kind) => {
  let cluster: TestCluster;
  let fake: FakeOpenAI;
  // 0.03 minutes = 1.8 s between channel test runs; a finished run is logged at debug.
  const env = { SYNC_FREQUENCY, CHANNEL_TEST_FREQUENCY: '0.03', LOG_LEVEL: 'debug' };
  const runs = (node: NodeProcess) => node.output().split('\n').filter((l) => l.includes('job channel-test-all finished')).length;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    cluster = await startCluster({ kind, nodes: [{ nodeType: 'master' }, { nodeType: 'master' }], env });
    const root = await rootClient(cluster.nodes[0]!.url);
    await addChannel(root, { name: 'probe', key: 'sk-probe', base_url: fake.url });
  });
  afterAll(async () => {
    await cluster?.close();
    await fake?.close();
  });

  it('runs the channel test job on one node only, and on the other once that one is killed', async () => {
    const [a, b] = cluster.nodes as [NodeProcess, NodeProcess];
    const probes = () => fake.requests.filter((r) => r.headers.authorization === 'Bearer sk-probe').length;
    await Promise.race([a.waitForOutput(/job channel-test-all finished/, 15_000), b.waitForOutput(/job channel-test-all finished/, 15_000)]);
    // From here on the channel exists, so each run probes it once.
    const [runs0, probes0] = [runs(a) + runs(b), probes()];
    await sleep(6000);
    const [ranA, ranB] = [runs(a), runs(b)];
    const ranInWindow = ranA + ranB - runs0;
    // Exactly one node ran it, at most once per period (1.8 s), and no probe came from an unlogged run.
    expect(Math.min(ranA, ranB)).toBe(0);
    expect(ranInWindow).toBeGreaterThanOrEqual(2);
    expect(ranInWindow).toBeLessThanOrEqual(5);
    expect(Math.abs(probes() - probes0 - ranInWindow)).toBeLessThanOrEqual(1);

    const [owner, other] = ranA > 0 ? [a, b] : [b, a];
    owner.kill('SIGKILL');
    await owner.exited;
    await other.waitForOutput(/job channel-test-all finished/, 10_000);
    expect(JSON.parse((await other.waitForOutput(/job channel-test-all finished/)).trim())).toMatchObject({ job: 'channel-test-all', node: other.nodeId });
  });
});

describe.skipIf(!kinds.length).each(cases)('two masters starting at once on an empty %s database', (kind) => {
  it('both boot: migrations and the root user are created once', async () => {
    const database = await createTestDatabase(kind);
    const env = { ...database.env, REDIS_CONN_STRING: isolatedRedisUrl(), NODE_TYPE: 'master' };
    const started = await Promise.allSettled([startNode({ ...env, NODE_ID: 'twin-1' }), startNode({ ...env, NODE_ID: 'twin-2' })]);
    try {
      expect(started.map((r) => (r.status === 'fulfilled' ? 'ok' : String(r.reason)))).toEqual(['ok', 'ok']);
      const [one] = started.map((r) => (r as PromiseFulfilledResult<NodeProcess>).value);
      expect((await rootClient(one!.url)).userId).toBe(1);
    } finally {
      await Promise.all(started.flatMap((r) => (r.status === 'fulfilled' ? [r.value.stop()] : [])));
      await database.drop();
    }
  });
});
