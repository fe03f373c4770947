import { startFakeSuno, type FakeSuno } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sunoTaskAdapter } from '../adapters/suno/task-adapter.js';
import { TaskPoller } from '../tasks/task-poller.js';
import { rootClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, balances, consumeLogs, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer } from '../../test-support/test-server.js';
import { expectedPerCallCharge } from '../../test-support/expected-charge.js';

/** The shipped fixed prices: suno_music $0.1, suno_lyrics $0.01. */
const MUSIC = expectedPerCallCharge({ model: 'suno_music' });
const LYRICS = expectedPerCallCharge({ model: 'suno_lyrics' });

interface SunoJson {
  code: string;
  message: string;
  data: unknown;
}

describe.each(testDbKinds())('Suno relay on %s', (kind) => {
  let h: RelayHarness;
  let suno: FakeSuno;
  let poller: TaskPoller;
  let alice: TestCaller;
  let bob: TestCaller;

  beforeAll(async () => {
    const server = await startTestServer({ kind, env: { UPDATE_TASK: 'false' } });
    suno = await startFakeSuno({ secret: 'suno-secret', stepMs: 25 });
    const root = await rootClient(server.url);
    h = { server, root, fake: undefined as never, close: async () => undefined };
    await addChannel(root, { type: 36, key: 'suno-secret', base_url: suno.url, models: 'suno_music,suno_lyrics' });
    poller = new TaskPoller(server.ctx, sunoTaskAdapter);
    alice = await addCaller(h, { quota: 1_000_000, remain: 1_000_000 });
    bob = await addCaller(h, { quota: 1_000_000, remain: 1_000_000 });
  });
  afterAll(async () => {
    await suno?.close();
    await h?.server.close();
  });

  const call = async (c: TestCaller, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await fetch(`${h.server.url}${path}`, {
      method,
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as SunoJson };
  };
  const pollUntil = async (c: TestCaller, id: string, status: string) => {
    for (let i = 0; i < 100; i++) {
      await poller.runOnce();
      const t = await call(c, 'GET', `/suno/fetch/${id}`);
      if ((t.body.data as { status: string }).status === status) return t.body.data as Record<string, unknown>;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`task ${id} never reached ${status}`);
  };

  it('music and lyrics: submitted upstream, charged per action, polled to SUCCESS', async () => {
    const music = await call(alice, 'POST', '/suno/submit/music', { prompt: '', gpt_description_prompt: 'a calm piano song' });
    expect(music).toMatchObject({ status: 200, body: { code: 'success' } });
    const sent = suno.requests.find((r) => r.path === '/suno/submit/MUSIC')!;
    expect(sent.headers.authorization).toBe('Bearer suno-secret');
    expect(sent.body).toEqual({ gpt_description_prompt: 'a calm piano song', mv: 'chirp-v3-0', make_instrumental: false });
    const done = await pollUntil(alice, music.body.data as string, 'SUCCESS');
    expect(done).toMatchObject({ action: 'MUSIC', progress: '100%' });
    expect((done.data as Array<{ audio_url: string }>)[0]!.audio_url).toMatch(/\.mp3$/);

    const lyrics = await call(alice, 'POST', '/suno/submit/lyrics', { prompt: 'the sea' });
    expect(lyrics.body.code).toBe('success');
    await pollUntil(alice, lyrics.body.data as string, 'SUCCESS');

    expect(await balances(h, alice)).toMatchObject({ quota: 1_000_000 - MUSIC - LYRICS, userUsed: MUSIC + LYRICS, remain: 1_000_000 - MUSIC - LYRICS });
    expect((await consumeLogs(h, alice.userId)).map((l) => [l.model_name, Number(l.quota)])).toEqual([
      ['suno_music', MUSIC],
      ['suno_lyrics', LYRICS],
    ]);
    const list = await h.root.get('/api/task/?p=0&channel_id=&task_id=&start_timestamp=&end_timestamp=NaN');
    expect((list.body.data as Array<{ task_id: string; action: string }>).find((t) => t.task_id === music.body.data)?.action).toBe('MUSIC');
  });

  it('a failed music task is refunded exactly once with two poll runs racing; another user cannot read it', async () => {
    const before = await balances(h, bob);
    const sub = await call(bob, 'POST', '/suno/submit/music', { prompt: 'explode', title: 't', tags: 'rock' });
    const id = sub.body.data as string;
    expect((await balances(h, bob)).quota).toBe(before.quota - MUSIC);
    for (let i = 0; i < 100 && suno.tasks.get(id)?.status !== 'FAILURE'; i++) await new Promise((r) => setTimeout(r, 20));
    const runs = await Promise.all([poller.runOnce(), new TaskPoller(h.server.ctx, sunoTaskAdapter).runOnce()]);
    expect(runs.reduce((n, r) => n + r.refunded, 0)).toBe(1);
    const task = (await call(bob, 'GET', `/suno/fetch/${id}`)).body.data as Record<string, unknown>;
    expect(task).toMatchObject({ status: 'FAILURE', progress: '100%', fail_reason: 'Unable to generate audio' });
    // The user gets the charge back (the reference's rule: the user, not the token's limit).
    expect(await balances(h, bob)).toMatchObject({ quota: before.quota, userUsed: before.userUsed, remain: before.remain - MUSIC });
    const refunds = await h.server.ctx.db.db.selectFrom('ledger_entries').select('quota_delta').where('kind', '=', 'refund').where('user_id', '=', bob.userId).execute();
    expect(refunds.map((r) => Number(r.quota_delta))).toEqual([MUSIC]);
    expect(await call(alice, 'GET', `/suno/fetch/${id}`)).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect((await call(alice, 'POST', '/suno/fetch', { ids: [id] })).body.data).toEqual([]);
  });

  it('bad input is refused in the Suno envelope and costs nothing; an upstream that is down leaves a task pending', async () => {
    const before = await balances(h, bob);
    expect(await call(bob, 'POST', '/suno/submit/video', { prompt: 'x' })).toMatchObject({ status: 400, body: { code: 'invalid_request', message: 'invalid_action' } });
    expect(await call(bob, 'POST', '/suno/submit/lyrics', { prompt: ' ' })).toMatchObject({ status: 400, body: { message: 'prompt_empty' } });
    expect(await call(bob, 'POST', '/suno/submit/music', { continue_clip_id: 'c1' })).toMatchObject({ status: 400 });
    expect(await call(bob, 'POST', '/suno/submit/music', { task_id: 'not-mine', continue_clip_id: 'c1' })).toMatchObject({ status: 400, body: { message: 'task_not_exist: not-mine' } });
    expect(await balances(h, bob)).toEqual(before);

    const sub = await call(bob, 'POST', '/suno/submit/music', { prompt: 'slow' });
    suno.down = true;
    for (let i = 0; i < 3; i++) await poller.runOnce();
    expect(((await call(bob, 'GET', `/suno/fetch/${sub.body.data as string}`)).body.data as { status: string }).status).toBe('NOT_START');
    suno.down = false;
    await pollUntil(bob, sub.body.data as string, 'SUCCESS');
    expect((await balances(h, bob)).quota).toBe(before.quota - MUSIC);
  });
});
