import { ChannelStatus } from '@modelgate/shared';
import { startFakeMj, type FakeMj } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { midjourneyTaskAdapter } from '../adapters/midjourney/task-adapter.js';
import { TaskPoller } from '../tasks/task-poller.js';
import { rootClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, balances, consumeLogs, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer } from '../../test-support/test-server.js';
import { expectedPerCallCharge } from '../../test-support/expected-charge.js';

const MJ_MODELS = 'mj_imagine,mj_variation,mj_reroll,mj_blend,mj_upscale,mj_describe,mj_uploads,swap_face,mj_zoom,mj_shorten,mj_modal,mj_inpaint,mj_custom_zoom,mj_high_variation,mj_low_variation,mj_pan,mj_upload';
/** mj_imagine's shipped fixed price ($0.1). */
const IMAGINE = expectedPerCallCharge({ model: 'mj_imagine' });
const UPSCALE = 25_000; // $0.05 × 500 000
const PNG = 'data:image/png;base64,iVBORw0KGgo=';

/** A proxy reply or task object, as the tests read them. */
interface MjJson {
  code?: number;
  result: string;
  status?: string;
  description?: string;
  [k: string]: unknown;
}

describe.each(testDbKinds())('Midjourney relay on %s', (kind) => {
  let h: RelayHarness;
  let mj: FakeMj;
  let poller: TaskPoller;
  let alice: TestCaller;
  let bob: TestCaller;

  beforeAll(async () => {
    // The poller is driven by the test (UPDATE_TASK=false), so races between runs are deliberate.
    const server = await startTestServer({ kind, env: { UPDATE_TASK: 'false' } });
    mj = await startFakeMj({ secret: 'mj-upstream-secret', stepMs: 30 });
    const root = await rootClient(server.url);
    h = { server, root, fake: undefined as never, close: async () => undefined };
    await addChannel(root, { type: 5, key: 'mj-upstream-secret', base_url: mj.url, models: MJ_MODELS });
    poller = new TaskPoller(server.ctx, midjourneyTaskAdapter);
    alice = await addCaller(h, { quota: 1_000_000, remain: 1_000_000 });
    bob = await addCaller(h, { quota: 1_000_000, remain: 1_000_000 });
  });
  afterAll(async () => {
    await mj?.close();
    await h?.server.close();
  });

  const post = async (c: Pick<TestCaller, 'key'> | null, path: string, body: unknown, raw?: string) => {
    const res = await fetch(`${h.server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(c ? { 'mj-api-secret': `sk-${c.key}` } : {}) },
      body: raw ?? JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as MjJson };
  };
  const get = async (c: TestCaller, path: string) => {
    const res = await fetch(`${h.server.url}${path}`, { headers: { authorization: `Bearer sk-${c.key}` } });
    return { status: res.status, body: (await res.json()) as MjJson };
  };
  /** Polls (as the job would) until the task reaches `status`. */
  const pollUntil = async (c: TestCaller, id: string, status: string) => {
    for (let i = 0; i < 100; i++) {
      await poller.runOnce();
      const t = await get(c, `/mj/task/${id}/fetch`);
      if (t.body.status === status) return t.body;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`task ${id} never reached ${status}`);
  };

  it('imagine → upscale (button) → variation: each accepted submit charged once at its price, tasks advanced by the poller', async () => {
    const imagine = await post(alice, '/mj/submit/imagine', { prompt: 'a red fox in snow --fast', state: 'x' });
    expect(imagine.status).toBe(200);
    expect(imagine.body).toMatchObject({ code: 1, description: '提交成功' });
    const id = imagine.body.result as string;
    // The upstream got the channel's secret and the client's body.
    const sent = mj.requests.find((r) => r.path === '/mj/submit/imagine')!;
    expect(sent.headers['mj-api-secret']).toBe('mj-upstream-secret');
    expect(sent.body).toMatchObject({ prompt: 'a red fox in snow --fast', state: 'x' });

    const done = await pollUntil(alice, id, 'SUCCESS');
    expect(done).toMatchObject({ id, action: 'IMAGINE', progress: '100%', prompt: 'a red fox in snow --fast' });
    // MjForwardUrlEnabled (default on): the image comes through the gateway, SSRF-guarded.
    expect(done.imageUrl).toMatch(new RegExp(`/mj/image/${id}$`));
    const refused = await fetch(`${h.server.url}/mj/image/${id}`);
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as MjJson).description).toMatch(/refused/);
    await h.root.put('/api/option/', { key: 'OutboundAllowedRanges', value: '127.0.0.1/32' });
    const image = await fetch(`${h.server.url}/mj/image/${id}`);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    await h.root.put('/api/option/', { key: 'OutboundAllowedRanges', value: '' });
    const u1 = (done.buttons as Array<{ customId: string; label: string }>).find((b) => b.label === 'U1')!;

    const up = await post(alice, '/mj-fast/mj/submit/action', { taskId: id, customId: u1.customId });
    expect(up.body).toMatchObject({ code: 1 });
    const upscaled = await pollUntil(alice, up.body.result, 'SUCCESS');
    expect(upscaled.action).toBe('UPSCALE');

    const vary = await post(alice, '/mj/submit/change', { taskId: id, action: 'VARIATION', index: 2 });
    expect(vary.body).toMatchObject({ code: 1 });
    await pollUntil(alice, vary.body.result, 'SUCCESS');

    const total = IMAGINE + UPSCALE + IMAGINE;
    expect(await balances(h, alice)).toMatchObject({ quota: 1_000_000 - total, userUsed: total, remain: 1_000_000 - total, tokenUsed: total });
    const logs = await consumeLogs(h, alice.userId);
    expect(logs.map((l) => [l.model_name, Number(l.quota)])).toEqual([
      ['mj_imagine', IMAGINE],
      ['mj_upscale', UPSCALE],
      ['mj_variation', IMAGINE],
    ]);
    const list = await post(alice, '/mj/task/list-by-condition', { ids: [id, up.body.result, 'nope'] });
    expect((list.body as unknown as Array<{ id: string }>).map((t) => t.id).sort()).toEqual([id, up.body.result].sort());
  });

  it('a task that fails is refunded exactly once, even with two poll runs racing', async () => {
    const before = await balances(h, bob);
    const sub = await post(bob, '/mj/submit/imagine', { prompt: 'explode the picture' });
    expect(sub.body.code).toBe(1);
    const id = sub.body.result as string;
    expect((await balances(h, bob)).quota).toBe(before.quota - IMAGINE);
    for (let i = 0; i < 100 && mj.tasks.get(id)?.status !== 'FAILURE'; i++) await new Promise((r) => setTimeout(r, 20));
    const runs = await Promise.all([new TaskPoller(h.server.ctx, midjourneyTaskAdapter).runOnce(), new TaskPoller(h.server.ctx, midjourneyTaskAdapter).runOnce(), poller.runOnce()]);
    expect(runs.reduce((n, r) => n + r.refunded, 0)).toBe(1);
    await Promise.all([poller.runOnce(), poller.runOnce()]);
    const task = (await get(bob, `/mj/task/${id}/fetch`)).body;
    expect(task).toMatchObject({ status: 'FAILURE', progress: '100%' });
    expect(task.failReason).toMatch(/could not be generated/);
    const after = await balances(h, bob);
    expect(after.quota).toBe(before.quota);
    expect(after.userUsed).toBe(before.userUsed);
    const db = h.server.ctx.db.db;
    const refunds = await db.selectFrom('ledger_entries').selectAll().where('kind', '=', 'refund').where('user_id', '=', bob.userId).execute();
    expect(refunds.map((r) => Number(r.quota_delta))).toEqual([IMAGINE]);
    const sys = await db.selectFrom('logs').selectAll().where('user_id', '=', bob.userId).where('type', '=', 4).execute();
    expect(sys.map((l) => [l.content, Number(l.quota)])).toEqual([[`构图失败 ${id}，补偿 ${IMAGINE}`, IMAGINE]]);
  });

  it('notify with only the task\u2019s API key changes nothing: progress, success and failure claims are refused', async () => {
    const before = await balances(h, bob);
    const sub = await post(bob, '/mj/submit/imagine', { prompt: 'notify me' });
    const id = sub.body.result;
    const row = () => h.server.ctx.db.db.selectFrom('midjourneys').select(['status', 'progress', 'image_url', 'fail_reason']).where('mj_id', '=', id).executeTakeFirstOrThrow();
    const stored = await row();
    const refusal = { code: 4, description: 'Task notifications are accepted only on the signed callback URL the gateway gave the drawing proxy; task status comes from polling the upstream', result: null };
    expect(await post(bob, '/mj/notify', { id, status: 'IN_PROGRESS', progress: '30%' })).toEqual({ status: 400, body: refusal });
    // The key holder claims a failure to get the drawing for free: refused, nothing refunded.
    const failure = { id, status: 'FAILURE', progress: '', failReason: 'reported by notify' };
    const claims = await Promise.all([post(bob, '/mj/notify', failure), post(bob, '/mj/notify', failure), post(bob, '/mj/notify', failure)]);
    expect(claims.map((c) => c.status)).toEqual([400, 400, 400]);
    expect(await row()).toEqual(stored);
    await pollUntil(bob, id, 'SUCCESS');
    expect((await balances(h, bob)).quota).toBe(before.quota - IMAGINE);
    const refunds = await h.server.ctx.db.db.selectFrom('ledger_entries').select('ref').where('kind', '=', 'refund').where('ref', 'like', 'mj:%').where('user_id', '=', bob.userId).execute();
    expect(refunds.length).toBe(1); // the earlier task the upstream failed, once
  });

  it('an upstream that is down at poll time leaves the task pending, then it completes', async () => {
    const sub = await post(alice, '/mj/submit/imagine', { prompt: 'a quiet lake' });
    const id = sub.body.result as string;
    const before = await balances(h, alice);
    mj.down = true;
    for (let i = 0; i < 4; i++) await poller.runOnce();
    const pending = (await get(alice, `/mj/task/${id}/fetch`)).body;
    expect(pending.status).toBe('SUBMITTED');
    expect(pending.progress).toBe('0%');
    mj.down = false;
    await pollUntil(alice, id, 'SUCCESS');
    expect(await balances(h, alice)).toEqual(before);
  });

  it('a user can never read or continue another user\u2019s task', async () => {
    const sub = await post(alice, '/mj/submit/imagine', { prompt: 'private cat' });
    const id = sub.body.result as string;
    await pollUntil(alice, id, 'SUCCESS');
    const before = await balances(h, bob);
    expect(await get(bob, `/mj/task/${id}/fetch`)).toMatchObject({ status: 404, body: { code: 3 } });
    expect((await post(bob, '/mj/task/list-by-condition', { ids: [id] })).body).toEqual([]);
    expect(await post(bob, '/mj/submit/change', { taskId: id, action: 'UPSCALE', index: 1 })).toMatchObject({ status: 404, body: { code: 3 } });
    expect(await post(bob, '/mj/notify', { id, status: 'FAILURE', failReason: 'x' })).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await balances(h, bob)).toEqual(before);
    // The admin list sees it with its channel; bob's own list does not.
    const own = await h.root.get('/api/mj/?p=0&channel_id=&mj_id=&start_timestamp=&end_timestamp=');
    expect((own.body.data as Array<{ mj_id: string; channel_id: number }>).find((t) => t.mj_id === id)?.channel_id).toBeGreaterThan(0);
  });

  it('a banned prompt (code 24), bad input and too little quota are answered in the proxy envelope and cost nothing', async () => {
    const before = await balances(h, bob);
    const banned = await post(bob, '/mj/submit/imagine', { prompt: 'something forbidden' });
    expect(banned).toMatchObject({ status: 200, body: { code: 24, properties: { bannedWord: 'forbidden' } } });
    expect(await post(bob, '/mj/submit/action', { taskId: 'x', customId: 'MJ::JOB::dance::1::abc' })).toMatchObject({ status: 400, body: { code: 4, description: expect.stringContaining('unknown_action') } });
    expect(await post(bob, '/mj/submit/describe', { base64: 'not-an-image' })).toMatchObject({ status: 400, body: { code: 4, description: expect.stringContaining('base64') } });
    expect(await post(bob, '/mj/submit/blend', { base64Array: [PNG] })).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await post(bob, '/mj/submit/imagine', null, '{"prompt":')).toMatchObject({ status: 400, body: { code: 4, description: expect.stringContaining('malformed JSON') } });
    expect(await post(null, '/mj/submit/imagine', { prompt: 'x' })).toMatchObject({ status: 401, body: { code: 401 } });
    expect(await balances(h, bob)).toEqual(before);
    const poor = await addCaller(h, { quota: 10_000, remain: 1_000_000 });
    const count = mj.requests.length;
    expect(await post(poor, '/mj/submit/imagine', { prompt: 'x' })).toMatchObject({ status: 400, body: { code: 4, description: expect.stringContaining('quota_not_enough') } });
    expect(mj.requests.length).toBe(count);
    expect((await balances(h, poor)).quota).toBe(10_000);
    const row = await h.server.ctx.db.db.selectFrom('midjourneys').selectAll().where('user_id', '=', bob.userId).where('code', '=', 24).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'FAILURE', quota: 0 });
  });
  // Last: it switches the channel off.
  it('code 30 is answered 429; code 3 switches the channel off only on a fresh submit; neither costs anything', async () => {
    await h.root.put('/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'true' });
    const imagine = await post(bob, '/mj/submit/imagine', { prompt: 'a quiet lake' });
    const id = imagine.body.result as string;
    await pollUntil(bob, id, 'SUCCESS');
    const before = await balances(h, bob);
    const channel = () => h.server.ctx.db.db.selectFrom('channels').select(['status']).where('type', '=', 5).executeTakeFirstOrThrow();
    mj.nextCode = 30;
    expect(await post(bob, '/mj/submit/imagine', { prompt: 'x' })).toMatchObject({ status: 429, body: { code: 30 } });
    // On a follow-up, 3 says the original is unknown upstream: a caller cannot switch a channel off.
    mj.nextCode = 3;
    expect(await post(bob, '/mj/submit/change', { taskId: id, action: 'VARIATION', index: 1 })).toMatchObject({ status: 200, body: { code: 3 } });
    expect((await channel()).status).toBe(ChannelStatus.Enabled);
    mj.nextCode = 3;
    expect(await post(bob, '/mj/submit/imagine', { prompt: 'x' })).toMatchObject({ status: 200, body: { code: 3, description: '无可用的账号实例' } });
    expect((await channel()).status).toBe(ChannelStatus.AutoDisabled);
    expect(await balances(h, bob)).toEqual(before);
    await h.root.put('/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'false' });
  });
});
