import { startFakeMj, type FakeMj } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient } from '../../test-support/api-client.js';
import { startCaptureListener, type CaptureListener } from '../../test-support/capture-listener.js';
import { addCaller, addChannel, balances, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer } from '../../test-support/test-server.js';

const IMAGINE = 50_000; // $0.1 × 500 000

interface Task {
  id: string;
  status: string;
  progress: string;
  imageUrl: string;
  failReason: string;
  properties: Record<string, unknown>;
  buttons: unknown[];
}

const until = async <T,>(what: string, fn: () => Promise<T | undefined>): Promise<T> => {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/**
 * Issue 29: `/mj/notify` took a task's status and image from anyone holding its API key. With
 * MjNotifyEnabled the proxy now gets this gateway's own callback URL, signed per task, and the
 * client's notifyHook is called from here. The poller is off (UPDATE_TASK=false): every change
 * below arrives through the signed callback alone.
 */
describe.each(testDbKinds())('Midjourney signed notify on %s', (kind) => {
  let h: RelayHarness;
  let mj: FakeMj;
  let alice: TestCaller;
  let hook: CaptureListener;
  let channelId: number;

  beforeAll(async () => {
    const server = await startTestServer({ kind, env: { UPDATE_TASK: 'false' } });
    // Slow enough that the task row is stored before the proxy's first callback.
    mj = await startFakeMj({ secret: 'mj-secret', stepMs: 150 });
    hook = await startCaptureListener();
    const root = await rootClient(server.url);
    h = { server, root, fake: undefined as never, close: async () => undefined };
    channelId = await addChannel(root, { type: 5, key: 'mj-secret', base_url: mj.url, models: 'mj_imagine' });
    for (const [key, value] of [
      ['MjNotifyEnabled', 'true'],
      ['ServerAddress', server.url],
      // The client's hook listens on loopback.
      ['OutboundAllowedRanges', '127.0.0.1/32'],
    ]) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
    alice = await addCaller(h, { quota: 1_000_000, remain: 1_000_000 });
  });
  afterAll(async () => {
    await mj?.close();
    await hook?.close();
    await h?.server.close();
  });

  const submit = async (prompt: string, extra: Record<string, unknown> = {}) => {
    const res = await fetch(`${h.server.url}/mj/submit/imagine`, { method: 'POST', headers: { 'content-type': 'application/json', 'mj-api-secret': `sk-${alice.key}`, 'accept-language': 'en' }, body: JSON.stringify({ prompt, ...extra }) });
    return { status: res.status, body: (await res.json()) as { code: number; result: string; description: string } };
  };
  const task = async (id: string) => (await (await fetch(`${h.server.url}/mj/task/${id}/fetch`, { headers: { authorization: `Bearer sk-${alice.key}` } })).json()) as Task;
  /** The callback URL the proxy was handed for a task. */
  const handed = (id: string) => {
    const sent = mj.requests.filter((r) => r.path === '/mj/submit/imagine').find((r) => mj.tasks.get(id)?.prompt === r.body?.prompt);
    return String(sent?.body?.notifyHook ?? '');
  };
  const notify = async (url: string, body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { code: number; description: string; result: unknown } };
  };
  const refunds = () => h.server.ctx.db.db.selectFrom('ledger_entries').select(['quota_delta', 'ref']).where('kind', '=', 'refund').where('user_id', '=', alice.userId).execute();

  it('the proxy gets a signed callback instead of the client\u2019s hook; its posts alone finish the task, and the client\u2019s hook gets the gateway\u2019s view', async () => {
    const sub = await submit('a lighthouse', { notifyHook: `${hook.url}/mine` });
    expect(sub.body.code).toBe(1);
    const id = sub.body.result;
    const url = handed(id);
    expect(url).toMatch(new RegExp(`^${h.server.url}/mj/notify\\?user=${alice.userId}&channel=${channelId}&nonce=[\\w-]{16}&sig=[\\w-]{43}$`));
    const done = await until('SUCCESS', async () => {
      const t = await task(id);
      return t.status === 'SUCCESS' ? t : undefined;
    });
    expect(done).toMatchObject({ progress: '100%', imageUrl: `${h.server.url}/mj/image/${id}` });
    expect(done.buttons.length).toBeGreaterThan(0);
    // The callback URL (the proxy echoes it in properties) and the binding are never shown.
    expect(JSON.stringify(done)).not.toContain('sig=');
    expect(Object.keys(done.properties).sort()).toEqual(['finalPrompt', 'messageHash']);
    const forwarded = await until('two forwarded notifications', async () => (hook.seen.length >= 2 ? hook.seen : undefined));
    expect(forwarded.map((r) => [r.method, r.url, r.headers['content-type']])).toEqual([
      ['POST', '/mine', 'application/json'],
      ['POST', '/mine', 'application/json'],
    ]);
    const bodies = forwarded.map((r) => JSON.parse(r.body) as Task);
    expect(bodies.map((b) => [b.id, b.status, b.progress])).toEqual([
      [id, 'IN_PROGRESS', '50%'],
      [id, 'SUCCESS', '100%'],
    ]);
    expect(bodies[1]!.imageUrl).toBe(`${h.server.url}/mj/image/${id}`);
    // Neither the proxy's address nor the signed URL reach the client.
    for (const r of forwarded) {
      expect(r.body).not.toContain(mj.url);
      expect(r.body).not.toContain('sig=');
    }
  });

  it('a callback URL updates only its own task, only as signed, and never with a non-http(s) image', async () => {
    const first = (await submit('a red barn')).body.result;
    const second = (await submit('a blue barn')).body.result;
    const url = handed(first);
    await until('both finished', async () => ((await task(first)).status === 'SUCCESS' && (await task(second)).status === 'SUCCESS' ? true : undefined));
    const before = await task(second);
    // The first task's URL cannot touch the second task of the same user on the same channel.
    expect(await notify(url, { id: second, status: 'SUCCESS', progress: '100%', imageUrl: 'https://evil.example/x.svg' })).toMatchObject({ status: 404, body: { code: 3 } });
    const u = new URL(url);
    const tampered = [
      url.replace(/sig=[\w-]+/, `sig=${'A'.repeat(43)}`),
      url.replace(`user=${alice.userId}`, `user=${alice.userId + 1}`),
      url.replace(`channel=${channelId}`, `channel=${channelId + 1}`),
      url.replace(/nonce=[\w-]+/, 'nonce=AAAAAAAAAAAAAAAA'),
      `${u.origin}${u.pathname}`,
    ];
    for (const t of tampered) expect(await notify(t, { id: second, progress: '10%' }), t).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await task(second)).toEqual(before);

    // A task still running: the signed post moves it, but a javascript: image is ignored.
    const third = (await submit('a green barn')).body.result;
    const signed = handed(third);
    expect(await notify(signed, { id: third, status: 'IN_PROGRESS', progress: '7%', imageUrl: 'javascript:alert(document.cookie)' })).toEqual({ status: 200, body: { code: 1, description: 'success', result: third } });
    const row = await h.server.ctx.db.db.selectFrom('midjourneys').select(['progress', 'image_url']).where('mj_id', '=', third).executeTakeFirstOrThrow();
    expect(row.image_url.startsWith('javascript:')).toBe(false);
    await until('third finished', async () => ((await task(third)).status === 'SUCCESS' ? true : undefined));
  });

  it('a signed failure is taken only when the upstream confirms it: refunded exactly once, however often it is posted', async () => {
    const before = await balances(h, alice);
    const refundsBefore = (await refunds()).length;
    // The upstream is still working on this one: a failure claimed on its callback refunds nothing.
    const busy = (await submit('a quiet harbour')).body.result;
    const claim = { id: busy, status: 'FAILURE', progress: '', failReason: 'claimed' };
    expect((await notify(handed(busy), claim)).status).toBe(200);
    expect((await task(busy)).status).not.toBe('FAILURE');
    await until('busy finished', async () => ((await task(busy)).status === 'SUCCESS' ? true : undefined));

    // This one fails upstream; the proxy's own callback (and three replays of it) refund once.
    const doomed = (await submit('explode the harbour')).body.result;
    await until('the upstream failure', async () => (mj.tasks.get(doomed)?.status === 'FAILURE' ? true : undefined));
    const failure = { ...mj.tasks.get(doomed)! };
    await Promise.all([1, 2, 3].map(() => notify(handed(doomed), failure)));
    const failed = await until('FAILURE', async () => {
      const t = await task(doomed);
      return t.status === 'FAILURE' ? t : undefined;
    });
    expect(failed).toMatchObject({ progress: '100%', failReason: 'Job failed: the image could not be generated' });
    const after = await balances(h, alice);
    expect(after).toEqual({ ...before, quota: before.quota - IMAGINE, userUsed: before.userUsed + IMAGINE, requests: before.requests + 2, remain: before.remain - 2 * IMAGINE, tokenUsed: before.tokenUsed + 2 * IMAGINE });
    const rows = await h.server.ctx.db.db.selectFrom('midjourneys').select('id').where('mj_id', '=', doomed).executeTakeFirstOrThrow();
    const all = await refunds();
    expect(all.length).toBe(refundsBefore + 1);
    expect(all.filter((r) => r.ref === `mj:${rows.id}`).map((r) => Number(r.quota_delta))).toEqual([IMAGINE]);
    const sys = await h.server.ctx.db.db.selectFrom('logs').select(['content', 'quota']).where('user_id', '=', alice.userId).where('type', '=', 4).execute();
    expect(sys.map((l) => [l.content, Number(l.quota)])).toEqual([[`构图失败 ${doomed}，补偿 ${IMAGINE}`, IMAGINE]]);
  });

  it('a notifyHook that is not http(s) is refused before anything is charged; a loopback hook is not called without OutboundAllowedRanges', async () => {
    const before = await balances(h, alice);
    const count = mj.requests.length;
    for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', 42, `${hook.url}/${'x'.repeat(2100)}`]) {
      expect(await submit('a hook', { notifyHook: bad })).toEqual({ status: 400, body: { code: 4, description: 'notifyHook must be an http(s) URL', result: null } });
    }
    expect(mj.requests.length).toBe(count);
    expect(await balances(h, alice)).toEqual(before);

    expect((await h.root.put('/api/option/', { key: 'OutboundAllowedRanges', value: '' })).body.success).toBe(true);
    const seen = hook.seen.length;
    const id = (await submit('an unreachable hook', { notifyHook: `${hook.url}/internal` })).body.result;
    await until('SUCCESS', async () => ((await task(id)).status === 'SUCCESS' ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.seen.length).toBe(seen);
    expect((await h.root.put('/api/option/', { key: 'OutboundAllowedRanges', value: '127.0.0.1/32' })).body.success).toBe(true);
  });

  it('with MjNotifyEnabled off no hook reaches the proxy, and nothing but the poller updates tasks', async () => {
    expect((await h.root.put('/api/option/', { key: 'MjNotifyEnabled', value: 'false' })).body.success).toBe(true);
    const id = (await submit('a silent task', { notifyHook: `${hook.url}/mine` })).body.result;
    const sent = mj.requests.filter((r) => r.path === '/mj/submit/imagine').at(-1)!;
    expect(sent.body).toEqual({ prompt: 'a silent task' });
    await until('the upstream success', async () => (mj.tasks.get(id)?.status === 'SUCCESS' ? true : undefined));
    expect((await task(id)).status).toBe('SUBMITTED');
    expect((await h.root.put('/api/option/', { key: 'MjNotifyEnabled', value: 'true' })).body.success).toBe(true);
  });
});
