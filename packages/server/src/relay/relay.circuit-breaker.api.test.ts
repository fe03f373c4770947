import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient } from '../test-support/api-client.js';
import { isolatedRedisUrl } from '../test-support/multinode.js';
import { addCaller, addChannel, balances, consumeLogs, expectChargedFor, priceModels, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { until } from '../test-support/text.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

/**
 * Issue 38 item 4: a channel whose upstream keeps failing is ejected for a back-off (its requests go
 * to the other channels), one probe lets it back, auto-disable is not involved, ejections reach the
 * other nodes, and retries stay a bounded share of requests.
 */
let asked = 0;
/** A new conversation each time: channel affinity would otherwise keep sending it to one channel. */
const fresh = () => [{ role: 'user' as const, content: `question ${++asked}` }];


describe('circuit breaking per channel', () => {
  let h: RelayHarness;
  let bad: FakeOpenAI;

  beforeAll(async () => {
    h = await startRelayHarness({ env: { CHANNEL_BREAKER_FAILURES: '3', CHANNEL_BREAKER_ERROR_RATE: '0', CHANNEL_BREAKER_BACKOFF: '1', RETRY_BUDGET_PERCENT: '0' } });
    bad = await startFakeOpenAI();
  });
  afterAll(async () => {
    await bad?.close();
    await h?.close();
  });

  it('ejects the failing channel after 3 failures, probes it after the back-off, and takes it back once it answers', async () => {
    await h.server.ctx.options.set('RetryTimes', '1');
    await priceModels(h, ['m-cb']);
    const failing = await addChannel(h.root, { base_url: bad.url, models: 'm-cb' });
    const healthy = await addChannel(h.root, { base_url: h.fake.url, models: 'm-cb' });
    bad.setFault({ status: 500 });
    const c = await addCaller(h);
    const start = await balances(h, c);

    // Every caller is served (the failing attempt is retried on the healthy channel) ...
    for (let i = 0; i < 30; i++) expect((await c.client.chat.completions.create({ model: 'm-cb', messages: fresh() })).choices[0]!.message.content).toBeTruthy();
    // ... and the failing upstream saw exactly the three requests that ejected it.
    expect(bad.requests).toHaveLength(3);
    expect(h.server.ctx.relay.breaker.ejected().has(failing)).toBe(true);
    // Not auto-disabled: the channel stays enabled in the database.
    const row = await h.server.ctx.db.db.selectFrom('channels').select('status').where('id', '=', failing).executeTakeFirstOrThrow();
    expect(Number(row.status)).toBe(1);

    // After the back-off one probe goes to it; it still fails, so it is out for twice as long.
    await new Promise((r) => setTimeout(r, 1_050));
    for (let i = 0; i < 20; i++) await c.client.chat.completions.create({ model: 'm-cb', messages: fresh() });
    expect(bad.requests).toHaveLength(4);

    // Healed: the next probe succeeds and the channel takes its share again.
    bad.setFault(null);
    await new Promise((r) => setTimeout(r, 2_050));
    for (let i = 0; i < 40; i++) await c.client.chat.completions.create({ model: 'm-cb', messages: fresh() });
    expect(h.server.ctx.relay.breaker.ejected().has(failing)).toBe(false);
    expect(bad.requests.length).toBeGreaterThan(5);

    // Charged once per answer delivered: 90 answers, 90 consume logs, the balance down by their sum.
    await expectChargedFor(h, c, start, 90);
    expect(new Set((await consumeLogs(h, c.userId)).map((l) => Number(l.channel_id)))).toEqual(new Set([failing, healthy]));
  });
});

describe('retry budget', () => {
  let h: RelayHarness;
  let down: FakeOpenAI;

  beforeAll(async () => {
    // No breaker: only the budget limits the retries here.
    h = await startRelayHarness({ env: { CHANNEL_BREAKER_FAILURES: '0', CHANNEL_BREAKER_ERROR_RATE: '0', RETRY_BUDGET_PERCENT: '20', RETRY_BUDGET_MIN: '2' } });
    down = await startFakeOpenAI({ fault: { status: 503 } });
  });
  afterAll(async () => {
    await down?.close();
    await h?.close();
  });

  it('when every channel fails, retries are at most 20 % of requests (plus the floor), and nothing is charged', async () => {
    await h.server.ctx.options.set('RetryTimes', '3');
    await priceModels(h, ['m-down']);
    for (let i = 0; i < 4; i++) await addChannel(h.root, { base_url: down.url, models: 'm-down' });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push(((await c.client.chat.completions.create({ model: 'm-down', messages: fresh() }).catch((e: unknown) => e)) as { status: number }).status);
    }
    expect(new Set(statuses)).toEqual(new Set([503]));
    // Without a budget: 20 × 4 attempts. With it: 20 first attempts and at most max(2, 20 × 20 %) = 4 retries.
    expect(down.requests.length).toBeLessThanOrEqual(24);
    expect(down.requests.length).toBeGreaterThanOrEqual(22);
    expect(h.server.ctx.relay.retryBudget.refused).toBeGreaterThan(0);
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });
});

describe.runIf(process.env.TEST_REDIS_URL && process.env.TEST_PG_URL)('ejections shared between two nodes over Redis', () => {
  let a: TestServer;
  let b: TestServer;
  let bad: FakeOpenAI;

  beforeAll(async () => {
    const env = { REDIS_CONN_STRING: isolatedRedisUrl(), CHANNEL_BREAKER_FAILURES: '2', CHANNEL_BREAKER_ERROR_RATE: '0', CHANNEL_BREAKER_BACKOFF: '60' };
    a = await startTestServer({ kind: 'postgres', env: { ...env, NODE_ID: 'cb-a' } });
    b = await startTestServer({ kind: 'postgres', env: { ...env, NODE_ID: 'cb-b' }, alongside: a });
    bad = await startFakeOpenAI({ fault: { status: 500 } });
  });
  afterAll(async () => {
    await bad?.close();
    await b?.close();
    await a?.close();
  });

  it('a channel ejected on one node is passed over on the other', async () => {
    const root = await rootClient(a.url);
    const h = { server: a, root, fake: bad, close: async () => undefined } satisfies RelayHarness;
    await priceModels(h, ['m-shared']);
    const failing = await addChannel(root, { base_url: bad.url, models: 'm-shared' });
    const caller = await addCaller(h);
    const onA = new OpenAI({ apiKey: `sk-${caller.key}`, baseURL: `${a.url}/v1`, maxRetries: 0 });
    for (let i = 0; i < 2; i++) await onA.chat.completions.create({ model: 'm-shared', messages: fresh() }).catch(() => undefined);
    expect(a.ctx.relay.breaker.ejected().has(failing)).toBe(true);
    await until(() => b.ctx.relay.breaker.ejected().has(failing));
    expect(b.ctx.relay.breaker.allows(failing)).toBe(false);
  });
});
