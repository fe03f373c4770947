import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';
import { windowCounter, timeTravelWindows } from '../test-support/windows.js';

/**
 * Periodic limits on users and tokens (docs/ledger.md "Windows and plans"): caps per rolling 5
 * hours, day, week and month, in quota and in requests, reserved with the request, settled or
 * given back with it, refused with 429 in the caller's format naming the window and its refill.
 */
const messages = [{ role: 'user', content: 'Hello there' }];

async function chat(url: string, key: string, opts: { lang?: string; model?: string; stream?: boolean; max_tokens?: number } = {}) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json', 'accept-language': opts.lang ?? 'en' },
    body: JSON.stringify({ model: opts.model ?? 'gpt-4o-mini', messages, stream: opts.stream ?? false, ...(opts.max_tokens ? { max_tokens: opts.max_tokens } : {}) }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
}

describe.each(testDbKinds())('periodic limits on %s', (kind) => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await priceModels(h, ['gpt-broken']);
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini,gpt-broken' });
    // Times in messages are in this zone.
    expect((await h.root.put('/api/option/', { key: 'TimeZone', value: 'Asia/Shanghai' })).body.success).toBe(true);
  });
  afterAll(() => h.close());

  it('refuses the request past a token daily request cap with 429, the window and its refill time; the counter holds what was charged', async () => {
    const c = await addCaller(h);
    // The token belongs to the caller, not root: set it through the repository as the owner's edit would.
    await h.server.ctx.tokens.update(c.userId, c.tokenId, { period_limits: JSON.stringify({ day: { quota: 0, requests: 3 } }) });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await chat(h.server.url, c.key));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    const refused = results[3]!;
    const body = JSON.parse(refused.body) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('period_limit_exceeded');
    expect(body.error.message).toMatch(/^This token has used up its daily request limit \(3\); it refills at \d{4}-\d\d-\d\d 00:00 \(Asia\/Shanghai\)$/);
    const retry = Number(refused.retryAfter);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(86_400);
    // In Chinese too.
    const zh = await chat(h.server.url, c.key, { lang: 'zh' });
    expect(JSON.parse(zh.body).error.message).toMatch(/^该令牌的每日请求次数上限（3）已用完，将于 \d{4}-\d\d-\d\d 00:00 \(Asia\/Shanghai\) 恢复$/);
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(3);
    const charged = logs.reduce((s, l) => s + Number(l.quota), 0);
    expect(await windowCounter(h, `t${c.tokenId}`, 'day')).toMatchObject({ quota_used: charged, requests_used: 3 });
    const b = await balances(h, c);
    expect(1_000_000 - b.quota).toBe(charged);
  });

  it('answers the refusal in the Claude and Gemini envelopes on their native routes', async () => {
    const c = await addCaller(h);
    await h.server.ctx.tokens.update(c.userId, c.tokenId, { period_limits: JSON.stringify({ week: { quota: 0, requests: 1 } }) });
    expect((await chat(h.server.url, c.key)).status).toBe(200);
    const claude = await fetch(`${h.server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${c.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, messages }),
    });
    expect(claude.status).toBe(429);
    const cb = (await claude.json()) as { type: string; error: { type: string; message: string } };
    expect(cb.type).toBe('error');
    expect(cb.error.message).toMatch(/weekly request limit \(1\); it refills at/);
    const gemini = await fetch(`${h.server.url}/v1beta/models/gpt-4o-mini:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': `sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }] }),
    });
    expect(gemini.status).toBe(429);
    const gb = (await gemini.json()) as { error: { code: number; message: string; status: string } };
    expect(gb.error.code).toBe(429);
    expect(gb.error.message).toMatch(/weekly request limit \(1\)/);
  });

  it('blocks on the first of several windows reached, and lets the others stand', async () => {
    const c = await addCaller(h);
    expect((await h.root.put('/api/user/', { id: c.userId, period_limits: { '5h': { requests: 5 }, day: { requests: 2 }, month: { quota: 100_000_000 } } })).body.success).toBe(true);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await chat(h.server.url, c.key));
    expect(statuses.map((s) => s.status)).toEqual([200, 200, 429]);
    expect(JSON.parse(statuses[2]!.body).error.message).toMatch(/^You have used up your daily request limit \(2\)/);
    expect(await windowCounter(h, `u${c.userId}`, '5h')).toMatchObject({ requests_used: 2 });
    expect(await windowCounter(h, `u${c.userId}`, 'day')).toMatchObject({ requests_used: 2 });
    // Shown back to the console.
    const user = (await h.root.get(`/api/user/${c.userId}`)).body.data;
    expect(user.period_limits).toEqual({ '5h': { quota: 0, requests: 5 }, day: { quota: 0, requests: 2 }, month: { quota: 100_000_000, requests: 0 } });
  });

  it('refills a 5-hour window once its five hours are over, and counts the new period from nothing', async () => {
    const c = await addCaller(h);
    await h.server.ctx.tokens.update(c.userId, c.tokenId, { period_limits: JSON.stringify({ '5h': { quota: 0, requests: 1 } }) });
    expect((await chat(h.server.url, c.key)).status).toBe(200);
    const first = await windowCounter(h, `t${c.tokenId}`, '5h');
    expect(first!.period_end - first!.period_start).toBe(5 * 3600);
    const refused = await chat(h.server.url, c.key);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(5 * 3600 - 60);
    // Five hours pass (the stored period moves into the past by as much).
    await timeTravelWindows(h, `t${c.tokenId}`, 5 * 3600);
    expect((await chat(h.server.url, c.key)).status).toBe(200);
    const second = await windowCounter(h, `t${c.tokenId}`, '5h');
    expect(second!.requests_used).toBe(1);
    expect(second!.period_start).toBeGreaterThanOrEqual(first!.period_start);
    expect((await chat(h.server.url, c.key)).status).toBe(429);
  });

  it('clamps a request to what a quota window has left, and refuses once nothing is left', async () => {
    const c = await addCaller(h);
    // gpt-4o-mini's upper bound with its 16k output cap is far above 2000: the request is clamped, not refused.
    await h.server.ctx.tokens.update(c.userId, c.tokenId, { period_limits: JSON.stringify({ day: { quota: 2000, requests: 0 } }) });
    const r = await chat(h.server.url, c.key);
    expect(r.status).toBe(200);
    const [log] = await consumeLogs(h, c.userId);
    const counter = await windowCounter(h, `t${c.tokenId}`, 'day');
    expect(counter).toMatchObject({ quota_used: Number(log!.quota), requests_used: 1 });
    expect(Number(log!.quota)).toBeLessThanOrEqual(2000);
    // Use the rest up, then the next is refused naming the quota cap.
    await h.server.ctx.db.db.updateTable('window_counters').set({ quota_used: 2000 }).where('account', '=', `t${c.tokenId}`).execute();
    await h.server.ctx.db.db.insertInto('window_charges').values({ request_id: `fill-${c.tokenId}`, account: `t${c.tokenId}`, win: 'day', period_start: counter!.period_start, quota: 2000 - Number(log!.quota), requests: 0, created_at: 0 }).execute();
    const refused = await chat(h.server.url, c.key);
    expect(refused.status).toBe(429);
    // The cap in money, as the site shows quota (2000 / 500000 = $0.004).
    expect(JSON.parse(refused.body).error.message).toMatch(/^This token has used up its daily quota limit \(\$0\.0040\); it refills at /);
  });

  it('gives back what a window was charged when every channel fails (released, nothing charged)', async () => {
    const c = await addCaller(h);
    await h.server.ctx.tokens.update(c.userId, c.tokenId, { period_limits: JSON.stringify({ day: { quota: 1_000_000, requests: 10 } }) });
    h.fake.setFault({ status: 500, models: ['gpt-broken'] });
    try {
      const r = await chat(h.server.url, c.key, { model: 'gpt-broken' });
      expect(r.status).toBe(500);
    } finally {
      h.fake.setFault(null);
    }
    expect(await windowCounter(h, `t${c.tokenId}`, 'day')).toMatchObject({ quota_used: 0, requests_used: 0 });
    const rows = await h.server.ctx.db.db.selectFrom('window_charges').selectAll().where('account', '=', `t${c.tokenId}`).execute();
    expect(rows.map((x) => [Number(x.quota), Number(x.requests)])).toEqual([[0, 0]]);
    expect((await consumeLogs(h, c.userId)).length).toBe(0);
  });

  it('validates the caps on the user and token APIs, naming the bad window', async () => {
    const c = await addCaller(h);
    for (const bad of [{ year: { quota: 1 } }, { day: { quota: -1 } }, { day: { quota: 1.5 } }, { day: { tokens: 3 } }, [1], 'day']) {
      const r = await h.root.put('/api/user/', { id: c.userId, period_limits: bad });
      expect(r.body.success, JSON.stringify(bad)).toBe(false);
      expect(r.body.message).toMatch(/period_limits/);
    }
    const created = await h.root.post('/api/token/', { name: 'windowed', expired_time: -1, unlimited_quota: true, period_limits: { day: { requests: 100 }, '5h': { quota: 0, requests: 0 } } });
    expect(created.body.success).toBe(true);
    expect(created.body.data.period_limits).toEqual({ day: { quota: 0, requests: 100 } });
    const badToken = await h.root.post('/api/token/', { name: 'bad', period_limits: { week: { requests: 'lots' } } });
    expect(badToken.body).toMatchObject({ success: false });
  });

  it('a caller without limits reads no window and writes no counter', async () => {
    const c = await addCaller(h);
    const before = await h.server.ctx.db.db.selectFrom('window_counters').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    expect((await chat(h.server.url, c.key)).status).toBe(200);
    const after = await h.server.ctx.db.db.selectFrom('window_counters').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    expect(Number(after!.n)).toBe(Number(before!.n));
    const check = await h.root.get('/api/ledger/check');
    expect(check.body.data.ok).toBe(true);
  });
});
