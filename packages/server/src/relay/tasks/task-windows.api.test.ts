import { startFakeMj, startFakeRealtime, startFakeSuno, type FakeMj, type FakeRealtime, type FakeSora, type FakeSuno } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../ledger/reconcile.js';
import { randomAlnum } from '../../modules/users/password.js';
import { rootClient } from '../../test-support/api-client.js';
import { expectedPerCallCharge } from '../../test-support/expected-charge.js';
import { connectRealtime, refusedUpgrade, REALTIME_MODEL, settledLedger, textTurn } from '../../test-support/realtime-client.js';
import { addCaller, addChannel, balances, consumeLogs, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer } from '../../test-support/test-server.js';
import { expectedVideoQuota, VIDEO_CASES } from '../../test-support/video-cases.js';
import { windowCounter } from '../../test-support/windows.js';
import { midjourneyTaskAdapter } from '../adapters/midjourney/task-adapter.js';
import { sunoTaskAdapter } from '../adapters/suno/task-adapter.js';
import { TaskPoller } from './task-poller.js';
import { failTask } from './task-settle.js';

/**
 * Task submits (Midjourney, Suno, video) and realtime sessions count against periodic limits and
 * plans like any request (docs/ledger.md "Windows and plans"): a window with no room refuses with
 * 429 in the kind's envelope, a plan with room pays instead of the wallet, and a failed task's
 * refund goes back where the charge came from — the plan's window or the wallet — and to the
 * windows it was counted in, exactly once.
 */
const IMAGINE = expectedPerCallCharge({ model: 'mj_imagine' });
const MUSIC = expectedPerCallCharge({ model: 'suno_music' });
const SORA = VIDEO_CASES.find((c) => c.name === 'sora')!;
const VIDEO = expectedVideoQuota(SORA);
const REFILL = /it refills at \d{4}-\d\d-\d\d 00:00 \(Asia\/Shanghai\)$/;

describe.each(testDbKinds())('periodic limits and plans on tasks and realtime on %s', (kind) => {
  let h: RelayHarness;
  let mj: FakeMj;
  let suno: FakeSuno;
  let sora: FakeSora;
  let rt: FakeRealtime;
  let mjPoller: TaskPoller;
  let sunoPoller: TaskPoller;

  beforeAll(async () => {
    // The pollers are driven by the tests (UPDATE_TASK=false).
    const server = await startTestServer({ kind, env: { UPDATE_TASK: 'false' } });
    [mj, suno, sora, rt] = await Promise.all([
      startFakeMj({ secret: 'mj-secret', stepMs: 20 }),
      startFakeSuno({ secret: 'suno-secret', stepMs: 20 }),
      SORA.start() as Promise<FakeSora>,
      startFakeRealtime({ apiKeys: ['sk-upstream'] }),
    ]);
    const root = await rootClient(server.url);
    h = { server, root, fake: undefined as never, close: async () => undefined };
    await addChannel(root, { type: 5, key: 'mj-secret', base_url: mj.url, models: 'mj_imagine' });
    await addChannel(root, { type: 36, key: 'suno-secret', base_url: suno.url, models: 'suno_music' });
    await addChannel(root, { ...SORA.channel(sora), name: 'sora' });
    await addChannel(root, { name: 'openai-rt', base_url: rt.url, models: REALTIME_MODEL });
    await server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
    expect((await root.put('/api/option/', { key: 'TimeZone', value: 'Asia/Shanghai' })).body.success).toBe(true);
    mjPoller = new TaskPoller(server.ctx, midjourneyTaskAdapter);
    sunoPoller = new TaskPoller(server.ctx, sunoTaskAdapter);
  });
  afterAll(async () => {
    await Promise.all([mj?.close(), suno?.close(), sora?.close(), rt?.close()]);
    await h?.server.close();
  });

  const call = async (c: Pick<TestCaller, 'key'>, path: string, body: unknown, lang = 'en') => {
    const res = await fetch(`${h.server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json', 'accept-language': lang },
      body: JSON.stringify(body),
    });
    return { status: res.status, retryAfter: Number(res.headers.get('retry-after')), body: (await res.json()) as Record<string, unknown> };
  };

  /** Polls a kind until the user's last task of it is finished. */
  async function finish(poller: TaskPoller, table: 'midjourneys' | 'tasks', userId: number, racing?: TaskPoller): Promise<number> {
    let refunded = 0;
    for (let i = 0; i < 150; i++) {
      const runs = await Promise.all([poller.runOnce(), ...(racing ? [racing.runOnce()] : [])]);
      refunded += runs.reduce((n, r) => n + r.refunded, 0);
      const row = await h.server.ctx.db.db.selectFrom(table).select('progress').where('user_id', '=', userId).orderBy('id', 'desc').executeTakeFirstOrThrow();
      if (row.progress === '100%') return refunded;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the task never finished');
  }

  /** A plan granted to the user (no wallet money moves): its subscription's account `s<id>`. */
  async function grantPlan(userId: number, allowances: Record<string, unknown>, fields: Record<string, unknown> = {}): Promise<string> {
    const created = await h.root.post('/api/plan/', { name: `plan-${randomAlnum(5)}`, price: 0, duration_days: 30, allowances, ...fields });
    expect(created.body.success, created.body.message).toBe(true);
    const granted = await h.root.post('/api/plan/grant', { user_id: userId, plan_id: created.body.data.id });
    expect(granted.body.success, granted.body.message).toBe(true);
    return `s${granted.body.data.id as number}`;
  }

  const refunds = async (userId: number) =>
    (await h.server.ctx.db.db.selectFrom('ledger_entries').select(['quota_delta', 'used_delta']).where('kind', '=', 'refund').where('user_id', '=', userId).execute()).map((e) => [
      Number(e.quota_delta),
      Number(e.used_delta),
    ]);

  async function reconciles(): Promise<void> {
    const r = await reconcile(h.server.ctx.db.db);
    expect(r.mismatches).toEqual([]);
    expect(r.ok).toBe(true);
  }

  it('a Midjourney and a Suno submit past a daily request cap are refused with 429 in their envelopes, naming the window and its refill', async () => {
    const c = await addCaller(h);
    expect((await h.root.put('/api/user/', { id: c.userId, period_limits: { day: { requests: 1 } } })).body.success).toBe(true);
    expect(await call(c, '/mj/submit/imagine', { prompt: 'a cat' })).toMatchObject({ status: 200, body: { code: 1 } });
    const mjRefused = await call(c, '/mj/submit/imagine', { prompt: 'a dog' });
    expect(mjRefused.status).toBe(429);
    expect(mjRefused.body).toMatchObject({ code: 30, result: null });
    expect(mjRefused.body.description).toMatch(/^You have used up your daily request limit \(1\); /);
    expect(mjRefused.body.description).toMatch(REFILL);
    expect(mjRefused.retryAfter).toBeGreaterThan(0);
    expect(mjRefused.retryAfter).toBeLessThanOrEqual(86_400);
    // Suno: the token's own cap, in Chinese.
    const d = await addCaller(h);
    await h.server.ctx.tokens.update(d.userId, d.tokenId, { period_limits: JSON.stringify({ day: { quota: 0, requests: 1 } }) });
    expect(await call(d, '/suno/submit/music', { prompt: 'calm piano' })).toMatchObject({ status: 200, body: { code: 'success' } });
    const sunoRefused = await call(d, '/suno/submit/music', { prompt: 'more piano' }, 'zh');
    expect(sunoRefused).toMatchObject({ status: 429, body: { code: 'period_limit_exceeded', data: null } });
    expect(sunoRefused.body.message).toMatch(/^该令牌的每日请求次数上限（1）已用完，将于 \d{4}-\d\d-\d\d 00:00 \(Asia\/Shanghai\) 恢复$/);
    expect(sunoRefused.retryAfter).toBeGreaterThan(0);
    // Only what the upstream accepted was charged, and counted once.
    expect(await balances(h, c)).toMatchObject({ quota: 1_000_000 - IMAGINE, remain: 1_000_000 - IMAGINE });
    expect(await balances(h, d)).toMatchObject({ quota: 1_000_000 - MUSIC, remain: 1_000_000 - MUSIC });
    expect(await windowCounter(h, `u${c.userId}`, 'day')).toMatchObject({ quota_used: IMAGINE, requests_used: 1 });
    expect(await windowCounter(h, `t${d.tokenId}`, 'day')).toMatchObject({ quota_used: MUSIC, requests_used: 1 });
    expect(mj.requests.filter((r) => r.path === '/mj/submit/imagine' && (r.body as { prompt?: string }).prompt === 'a dog')).toHaveLength(0);
    await reconciles();
  });

  it('a video submit past a daily request cap is refused with 429 on both surfaces, and nothing is charged', async () => {
    const c = await addCaller(h, { quota: 50_000_000, remain: 50_000_000 });
    await h.server.ctx.tokens.update(c.userId, c.tokenId, { period_limits: JSON.stringify({ day: { quota: 0, requests: 1 } }) });
    expect((await call(c, '/v1/video/generations', { model: SORA.model, prompt: 'a lighthouse', ...SORA.unified })).status).toBe(200);
    const unified = await call(c, '/v1/video/generations', { model: SORA.model, prompt: 'a harbour', ...SORA.unified });
    expect(unified).toMatchObject({ status: 429, body: { code: 'period_limit_exceeded', data: null } });
    expect(unified.body.message).toMatch(/^This token has used up its daily request limit \(1\); /);
    expect(unified.retryAfter).toBeGreaterThan(0);
    const openai = await call(c, '/v1/videos', { model: SORA.model, prompt: 'a harbour', ...SORA.openai });
    expect(openai.status).toBe(429);
    expect(openai.body.error).toMatchObject({ code: 'period_limit_exceeded', message: expect.stringMatching(REFILL) });
    expect(await balances(h, c)).toMatchObject({ quota: 50_000_000 - VIDEO, remain: 50_000_000 - VIDEO });
    expect(await windowCounter(h, `t${c.tokenId}`, 'day')).toMatchObject({ quota_used: VIDEO, requests_used: 1 });
    await reconciles();
  });

  it('a plan pays for a task: the wallet is untouched, the plan window charged, the log says the plan paid', async () => {
    const c = await addCaller(h);
    const sub = await grantPlan(c.userId, { day: { quota: 10 * MUSIC, requests: 5 } });
    const before = await balances(h, c);
    expect(await call(c, '/suno/submit/music', { prompt: 'a song' })).toMatchObject({ status: 200, body: { code: 'success' } });
    // The token's limit is a spending cap and still counts what the plan paid; the wallet does not move.
    expect(await balances(h, c)).toMatchObject({ quota: before.quota, userUsed: before.userUsed + MUSIC, remain: before.remain - MUSIC });
    expect(await windowCounter(h, sub, 'day')).toMatchObject({ quota_used: MUSIC, requests_used: 1 });
    const [log] = await consumeLogs(h, c.userId);
    expect(Number(log!.quota)).toBe(MUSIC);
    expect(JSON.parse(log!.other)).toMatchObject({ billing_source: 'plan', plan_id: Number(sub.slice(1)) });
    // A plan that refuses usage beyond it, used up: the Midjourney submit is refused naming the plan.
    const d = await addCaller(h);
    await grantPlan(d.userId, { day: { requests: 1 } }, { name: 'Night owl', fall_through: false });
    expect(await call(d, '/mj/submit/imagine', { prompt: 'an owl' })).toMatchObject({ status: 200, body: { code: 1 } });
    const refused = await call(d, '/mj/submit/imagine', { prompt: 'two owls' });
    expect(refused).toMatchObject({ status: 429, body: { code: 30 } });
    expect(refused.body.description).toMatch(/Night owl/);
    expect((await balances(h, d)).quota).toBe(1_000_000);
    await reconciles();
  });

  it('a failed task a plan paid is refunded into the plan window, not the wallet, once with two pollers racing', async () => {
    const c = await addCaller(h);
    const sub = await grantPlan(c.userId, { day: { quota: 10 * MUSIC, requests: 5 } });
    const before = await balances(h, c);
    const sent = await call(c, '/suno/submit/music', { prompt: 'explode' });
    expect(sent.body.code).toBe('success');
    expect(await windowCounter(h, sub, 'day')).toMatchObject({ quota_used: MUSIC, requests_used: 1 });
    const id = sent.body.data as string;
    for (let i = 0; i < 100 && suno.tasks.get(id)?.status !== 'FAILURE'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await finish(sunoPoller, 'tasks', c.userId, new TaskPoller(h.server.ctx, sunoTaskAdapter))).toBe(1);
    expect(await windowCounter(h, sub, 'day')).toMatchObject({ quota_used: 0, requests_used: 0 });
    // The wallet never paid and gets nothing; its usage counter goes back; the token's spending stays counted.
    expect(await balances(h, c)).toMatchObject({ quota: before.quota, userUsed: before.userUsed, remain: before.remain - MUSIC });
    expect(await refunds(c.userId)).toEqual([[0, -MUSIC]]);
    const charges = await h.server.ctx.db.db.selectFrom('window_charges').select(['quota', 'requests']).where('account', '=', sub).execute();
    expect(charges.map((r) => [Number(r.quota), Number(r.requests)])).toEqual([[0, 0]]);
    // Polled again: nothing more moves.
    await sunoPoller.runOnce();
    expect(await refunds(c.userId)).toHaveLength(1);
    expect(await windowCounter(h, sub, 'day')).toMatchObject({ quota_used: 0, requests_used: 0 });
    await reconciles();
  });

  it('a failed task the wallet paid refunds the wallet once and gives the user and token windows their charge back', async () => {
    const c = await addCaller(h);
    expect((await h.root.put('/api/user/', { id: c.userId, period_limits: { day: { quota: 10 * IMAGINE, requests: 3 } } })).body.success).toBe(true);
    await h.server.ctx.tokens.update(c.userId, c.tokenId, { period_limits: JSON.stringify({ week: { quota: 0, requests: 5 } }) });
    const before = await balances(h, c);
    const sent = await call(c, '/mj/submit/imagine', { prompt: 'explode the sky' });
    expect(sent.body.code).toBe(1);
    expect(await windowCounter(h, `u${c.userId}`, 'day')).toMatchObject({ quota_used: IMAGINE, requests_used: 1 });
    await new Promise((r) => setTimeout(r, 120));
    expect(await finish(mjPoller, 'midjourneys', c.userId, new TaskPoller(h.server.ctx, midjourneyTaskAdapter))).toBe(1);
    expect(await balances(h, c)).toMatchObject({ quota: before.quota, userUsed: before.userUsed, remain: before.remain - IMAGINE });
    expect(await refunds(c.userId)).toEqual([[IMAGINE, -IMAGINE]]);
    expect(await windowCounter(h, `u${c.userId}`, 'day')).toMatchObject({ quota_used: 0, requests_used: 0 });
    expect(await windowCounter(h, `t${c.tokenId}`, 'week')).toMatchObject({ quota_used: 0, requests_used: 0 });
    const logs = await consumeLogs(h, c.userId);
    expect(JSON.parse(logs[0]!.other)).not.toHaveProperty('billing_source');
    await mjPoller.runOnce();
    expect(await refunds(c.userId)).toHaveLength(1);
    await reconciles();
  });

  it("a task row whose request id was forged (another user's, or none) refunds its owner's wallet once and touches nobody else's money or windows", async () => {
    const db = h.server.ctx.db.db;
    const dayCap = { day: { quota: 10 * IMAGINE, requests: 3 } };
    // Another user's submit, counted in their daily window and their token's weekly one.
    const other = await addCaller(h);
    expect((await h.root.put('/api/user/', { id: other.userId, period_limits: dayCap })).body.success).toBe(true);
    await h.server.ctx.tokens.update(other.userId, other.tokenId, { period_limits: JSON.stringify({ week: { quota: 0, requests: 5 } }) });
    expect((await call(other, '/mj/submit/imagine', { prompt: 'a calm harbour' })).body.code).toBe(1);
    const { request_id: otherRid } = await db.selectFrom('midjourneys').select('request_id').where('user_id', '=', other.userId).executeTakeFirstOrThrow();
    const chargesOf = async (rid: string) =>
      (await db.selectFrom('window_charges').select(['account', 'quota', 'requests']).where('request_id', '=', rid).orderBy('account').execute()).map((r) => [r.account, Number(r.quota), Number(r.requests)]);
    const otherCharges = await chargesOf(otherRid);
    expect(otherCharges).toEqual([
      [`t${other.tokenId}`, IMAGINE, 1],
      [`u${other.userId}`, IMAGINE, 1],
    ]);
    const otherState = async () => ({
      balances: await balances(h, other),
      day: await windowCounter(h, `u${other.userId}`, 'day'),
      week: await windowCounter(h, `t${other.tokenId}`, 'week'),
      charges: await chargesOf(otherRid),
      refunds: await refunds(other.userId),
    });

    for (const forged of [otherRid, `forged-${randomAlnum(12)}`]) {
      const c = await addCaller(h);
      expect((await h.root.put('/api/user/', { id: c.userId, period_limits: dayCap })).body.success).toBe(true);
      const before = await balances(h, c);
      expect((await call(c, '/mj/submit/imagine', { prompt: 'explode the harbour' })).body.code).toBe(1);
      const row = await db.selectFrom('midjourneys').select(['id', 'request_id']).where('user_id', '=', c.userId).executeTakeFirstOrThrow();
      expect(await chargesOf(row.request_id)).toEqual([[`u${c.userId}`, IMAGINE, 1]]);
      // Corrupted in the database: the refund can no longer find the request its submit was charged under.
      await db.updateTable('midjourneys').set({ request_id: forged }).where('id', '=', row.id).execute();
      const othersBefore = await otherState();
      await new Promise((r) => setTimeout(r, 120));
      expect(await finish(mjPoller, 'midjourneys', c.userId, new TaskPoller(h.server.ctx, midjourneyTaskAdapter))).toBe(1);
      // As for a row without a request id: the whole charge back to the wallet, which paid it.
      expect(await balances(h, c)).toMatchObject({ quota: before.quota, userUsed: before.userUsed, remain: before.remain - IMAGINE });
      expect(await refunds(c.userId)).toEqual([[IMAGINE, -IMAGINE]]);
      // Its own window charge is not found through the forged id: it stays counted (a cap, no money).
      expect(await chargesOf(row.request_id)).toEqual([[`u${c.userId}`, IMAGINE, 1]]);
      expect(await otherState()).toEqual(othersBefore);

      // The failure processed again: by a poller; then with the row reopened (only the refund's own claim stands in the way), twice.
      await mjPoller.runOnce();
      await db.updateTable('midjourneys').set({ progress: '0%', status: 'IN_PROGRESS' }).where('id', '=', row.id).execute();
      const reopened = await db.selectFrom('midjourneys').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
      expect(await failTask(h.server.ctx, midjourneyTaskAdapter, reopened, 'failed again')).toEqual({ changed: true, refunded: false });
      expect(await failTask(h.server.ctx, midjourneyTaskAdapter, reopened, 'failed again')).toEqual({ changed: false, refunded: false });
      expect(await refunds(c.userId)).toHaveLength(1);
      expect(await balances(h, c)).toMatchObject({ quota: before.quota, userUsed: before.userUsed });
      expect(await otherState()).toEqual(othersBefore);
    }
    // The other user's own task ran on: charged once, its windows counted once.
    expect(await otherState()).toMatchObject({ balances: { quota: 1_000_000 - IMAGINE }, day: { quota_used: IMAGINE, requests_used: 1 }, charges: otherCharges, refunds: [] });
    await reconciles();
  });

  it('a realtime session counts each response against a window; the response past it ends the session with a rate-limit event, a new one gets 429', async () => {
    const c = await addCaller(h);
    await h.server.ctx.tokens.update(c.userId, c.tokenId, { period_limits: JSON.stringify({ day: { quota: 0, requests: 2 } }) });
    const client = await connectRealtime(h, c);
    await client.next('session.created');
    const u1 = await textTurn(client, 'Tell me a joke please');
    await textTurn(client, 'Another one');
    const error = await client.next('error');
    expect(error.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'period_limit_exceeded', message: expect.stringMatching(/^This token has used up its daily request limit \(2\); /) });
    expect((await client.closed).code).toBe(1008);
    await settledLedger(h, { userId: c.userId, count: 2 });
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(2);
    const charged = logs.reduce((s, l) => s + Number(l.quota), 0);
    expect(charged).toBeGreaterThan(0);
    expect(u1.input_tokens).toBeGreaterThan(0);
    expect(await windowCounter(h, `t${c.tokenId}`, 'day')).toMatchObject({ quota_used: charged, requests_used: 2 });
    expect(await balances(h, c)).toMatchObject({ quota: 1_000_000 - charged, remain: 1_000_000 - charged });
    const again = await refusedUpgrade(h, { authorization: `Bearer sk-${c.key}` });
    expect(again.status).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    expect(again.body.error).toMatchObject({ code: 'period_limit_exceeded' });
    await reconciles();
  });

  it('a realtime session of a caller with a plan is paid by the plan', async () => {
    const c = await addCaller(h);
    const sub = await grantPlan(c.userId, { day: { quota: 1_000_000, requests: 10 } });
    const client = await connectRealtime(h, c);
    await client.next('session.created');
    await textTurn(client, 'Tell me a joke please');
    client.ws.close(1000, 'bye');
    await client.closed;
    await settledLedger(h, { userId: c.userId, count: 2 });
    const [log] = await consumeLogs(h, c.userId);
    const charged = Number(log!.quota);
    expect(JSON.parse(log!.other)).toMatchObject({ ws: true, billing_source: 'plan', plan_id: Number(sub.slice(1)) });
    expect(await balances(h, c)).toMatchObject({ quota: 1_000_000, userUsed: charged });
    // The second hold was released: only the response that ran is counted.
    expect(await windowCounter(h, sub, 'day')).toMatchObject({ quota_used: charged, requests_used: 1 });
    await reconciles();
  });
});
