import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient } from '../test-support/api-client.js';
import { multiNodeDbKinds, startCluster, type TestCluster } from '../test-support/multinode.js';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';

/** One chat request with the caller's raw key; the status, Retry-After and the error body. */
async function call(url: string, key: string, opts: { model?: string; stream?: boolean; lang?: string } = {}) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json', 'accept-language': opts.lang ?? 'en' },
    body: JSON.stringify({ model: opts.model ?? 'gpt-4o-mini', stream: opts.stream ?? false, messages: [{ role: 'user', content: 'Hello there' }] }),
  });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text };
}

describe('usage limits: per-token RPM and TPM, per-user concurrency', () => {
  let h: RelayHarness;
  let slow: FakeOpenAI;
  beforeAll(async () => {
    h = await startRelayHarness();
    slow = await startFakeOpenAI({ chunkCount: 30, chunkDelayMs: 40 });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini' });
    await priceModels(h, ['m-slow']);
    await addChannel(h.root, { base_url: slow.url, models: 'm-slow' });
  });
  afterAll(async () => {
    await slow.close();
    await h.close();
  });

  /** As a token edit does: the row is written and every node's cached token dropped (onWrite). */
  async function setTokenLimits(c: TestCaller, limits: { rpm_limit?: number; tpm_limit?: number }): Promise<void> {
    await h.server.ctx.tokens.update(c.userId, c.tokenId, limits);
  }

  it('refuses the request past the token RPM with 429, Retry-After and an OpenAI error; refused requests cost nothing', async () => {
    const c = await addCaller(h);
    await setTokenLimits(c, { rpm_limit: 3 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await call(h.server.url, c.key));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    const refused = results[3]!;
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(JSON.parse(refused.text)).toEqual({
      error: { message: 'This token has reached its requests-per-minute limit, please try again later: 3 / min', type: 'new_api_error', param: null, code: 'rate_limit_exceeded' },
    });
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(3);
    const b = await balances(h, c);
    const charged = logs.reduce((s, l) => s + Number(l.quota), 0);
    expect(b.userUsed).toBe(charged);
    expect(b.tokenUsed).toBe(charged);
    // Another token of no limit is not affected.
    const other = await addCaller(h);
    expect((await call(h.server.url, other.key)).status).toBe(200);
  });

  it('refuses once the tokens of the last minute reach the token TPM (counted from what was billed)', async () => {
    const c = await addCaller(h);
    await setTokenLimits(c, { tpm_limit: 5 });
    const first = await call(h.server.url, c.key);
    expect(first.status).toBe(200);
    const [log] = await consumeLogs(h, c.userId);
    expect(Number(log!.prompt_tokens) + Number(log!.completion_tokens)).toBeGreaterThanOrEqual(5);
    // Counting happens right after settlement, off the request; give it a moment.
    await new Promise((r) => setTimeout(r, 100));
    const second = await call(h.server.url, c.key, { lang: 'zh' });
    expect(second.status).toBe(429);
    expect(JSON.parse(second.text).error.message).toBe('该令牌已达到每分钟 Token 数上限，请稍后再试: 5 / min');
  });

  it("refuses a user's request beyond their concurrency limit while another is in flight, and frees the slot when it ends", async () => {
    const c = await addCaller(h);
    expect((await h.root.put('/api/user/', { id: c.userId, concurrency_limit: 1 })).body).toMatchObject({ success: true, data: { concurrency_limit: 1 } });
    const open = fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm-slow', stream: true, messages: [{ role: 'user', content: 'a long answer' }] }),
    });
    const streaming = await open;
    const reader = streaming.body!.getReader();
    await reader.read();
    const busy = await call(h.server.url, c.key);
    expect([busy.status, busy.retryAfter]).toEqual([429, '1']);
    expect(JSON.parse(busy.text).error.code).toBe('rate_limit_exceeded');
    while (!(await reader.read()).done);
    await new Promise((r) => setTimeout(r, 50));
    expect((await call(h.server.url, c.key)).status).toBe(200);
    // Limits are shown back to the console.
    expect((await h.root.get(`/api/user/${c.userId}`)).body.data.concurrency_limit).toBe(1);
  });

  it('takes the limits from the token API and refuses bad values naming the field', async () => {
    const created = await h.root.post('/api/token/', { name: 'limited', remain_quota: 1000, expired_time: -1, rpm_limit: 60, tpm_limit: 100000 });
    expect(created.body.success).toBe(true);
    const list = await h.root.get('/api/token/?p=0&size=100');
    const t = (list.body.data as Array<{ id: number; name: string; rpm_limit: number; tpm_limit: number }>).find((x) => x.name === 'limited')!;
    expect([t.rpm_limit, t.tpm_limit]).toEqual([60, 100000]);
    const edited = await h.root.put('/api/token/', { id: t.id, name: 'limited', rpm_limit: 0 });
    expect(edited.body.data).toMatchObject({ rpm_limit: 0, tpm_limit: 100000 });
    for (const bad of [{ rpm_limit: -1 }, { tpm_limit: 1.5 }, { rpm_limit: 'many' }]) {
      const r = await h.root.put('/api/token/', { id: t.id, ...bad });
      expect(r.body.success).toBe(false);
      expect(r.body.message).toMatch(Object.keys(bad)[0]!);
    }
    const badUser = await h.root.put('/api/user/', { id: 1, concurrency_limit: -2 });
    expect(badUser.body.success).toBe(false);
    expect(badUser.body.message).toMatch('concurrency_limit');
  });
});

describe.runIf(multiNodeDbKinds().length > 0 && process.env.TEST_REDIS_URL)('usage limits across two nodes (Redis)', () => {
  let cluster: TestCluster;
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    cluster = await startCluster({ kind: multiNodeDbKinds()[0]!, nodes: [{ nodeType: 'master' }, { nodeType: 'slave' }] });
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
    await fake?.close();
  });

  it("counts one token's requests on both nodes against one RPM budget", async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const root = await rootClient(a.url);
    await addChannel(root, { base_url: fake.url, models: 'gpt-4o-mini' });
    expect((await root.post('/api/token/', { name: 'shared', remain_quota: 0, unlimited_quota: true, expired_time: -1, rpm_limit: 4 })).body.success).toBe(true);
    const t = ((await root.get('/api/token/?p=0&size=10')).body.data as Array<{ key: string; name: string }>).find((x) => x.name === 'shared')!;
    const statuses: number[] = [];
    for (const node of [a, b, a, b, a, b]) statuses.push((await call(node.url, t.key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  }, 60_000);
});
