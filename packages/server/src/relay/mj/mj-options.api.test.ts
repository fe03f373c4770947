import { startFakeMj, type FakeMj } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient, type ApiClient } from '../../test-support/api-client.js';
import { expectedPerCallCharge } from '../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer } from '../../test-support/test-server.js';

const MJ_MODELS = 'mj_imagine,mj_variation,mj_reroll,mj_upscale';
const VARIATION = expectedPerCallCharge({ model: 'mj_variation' });

interface MjJson {
  code?: number;
  result?: unknown;
  description?: string;
}

/**
 * The three drawing switches of the settings screen (reference server-behaviour §Midjourney):
 * MjAccountFilterEnabled passes `accountFilter` on, MjModeClearEnabled strips the speed flags from
 * the prompt, MjActionCheckSuccessEnabled lets a follow-up continue only a SUCCESS task.
 */
describe.each(testDbKinds())('Midjourney options on %s', (kind) => {
  let h: RelayHarness;
  let mj: FakeMj;
  let root: ApiClient;
  let caller: TestCaller;

  beforeAll(async () => {
    // No poller (UPDATE_TASK=false): the gateway's task rows keep the state of their submit.
    const server = await startTestServer({ kind, env: { UPDATE_TASK: 'false' } });
    mj = await startFakeMj({ secret: 'mj-upstream-secret', stepMs: 10 });
    root = await rootClient(server.url);
    h = { server, root, fake: undefined as never, close: async () => undefined };
    await addChannel(root, { type: 5, key: 'mj-upstream-secret', base_url: mj.url, models: MJ_MODELS });
    caller = await addCaller(h, { quota: 2_000_000, remain: 2_000_000 });
  });
  afterAll(async () => {
    await mj?.close();
    await h?.server.close();
  });

  const setOption = async (key: string, value: string) => expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${h.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'mj-api-secret': `sk-${caller.key}` }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as MjJson };
  };
  /** The body the upstream received for the last submit to `path`. */
  const sent = (path: string) => mj.requests.filter((r) => r.path === path).at(-1)!.body!;
  const imagine = async (prompt: string, extra: Record<string, unknown> = {}) => {
    const r = await post('/mj/submit/imagine', { prompt, ...extra });
    expect(r.body.code, r.body.description).toBe(1);
    return r.body.result as string;
  };
  /** Waits until the upstream itself has finished the task (the gateway's row is not polled). */
  const upstreamDone = async (id: string) => {
    for (let i = 0; i < 200 && mj.tasks.get(id)?.status !== 'SUCCESS'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(mj.tasks.get(id)?.status).toBe('SUCCESS');
  };

  it('MjAccountFilterEnabled: off (default) drops accountFilter; on passes it as sent', async () => {
    const filter = { channelId: 'discord-channel-1', instanceId: 'inst-1', modes: ['FAST'], remark: 'team-a' };
    await imagine('a lighthouse at dusk', { accountFilter: filter });
    expect(sent('/mj/submit/imagine')).not.toHaveProperty('accountFilter');
    expect(sent('/mj/submit/imagine')).toMatchObject({ prompt: 'a lighthouse at dusk' });

    await setOption('MjAccountFilterEnabled', 'true');
    await imagine('a lighthouse at dawn', { accountFilter: filter });
    expect(sent('/mj/submit/imagine')).toMatchObject({ prompt: 'a lighthouse at dawn', accountFilter: filter });
    await setOption('MjAccountFilterEnabled', 'false');
  });

  it('MjModeClearEnabled: off (default) keeps the speed flags; on strips --fast, --relax and --turbo only', async () => {
    await imagine('a cat --fast --ar 16:9');
    expect(sent('/mj/submit/imagine').prompt).toBe('a cat --fast --ar 16:9');

    await setOption('MjModeClearEnabled', 'true');
    await imagine('a cat --fast --ar 16:9');
    expect(sent('/mj/submit/imagine').prompt).toBe('a cat --ar 16:9');
    await imagine('a dog --relax --v 6 --turbo');
    expect(sent('/mj/submit/imagine').prompt).toBe('a dog --v 6');
    // The task keeps what the caller asked for; only the upstream copy is cleared.
    const id = await imagine('a fox --turbo');
    const row = await h.server.ctx.db.db.selectFrom('midjourneys').select('prompt').where('mj_id', '=', id).executeTakeFirstOrThrow();
    expect(sent('/mj/submit/imagine').prompt).toBe('a fox');
    expect(row.prompt).toBe('a fox --turbo');
    await setOption('MjModeClearEnabled', 'false');
  });

  it('MjActionCheckSuccessEnabled: on (default) refuses to continue an unfinished task, free and unsent; off lets it through', async () => {
    const id = await imagine('a harbour in fog');
    await upstreamDone(id);
    const row = await h.server.ctx.db.db.selectFrom('midjourneys').select('status').where('mj_id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).not.toBe('SUCCESS');

    const before = await balances(h, caller);
    const changesBefore = mj.requests.filter((r) => r.path === '/mj/submit/change').length;
    const refused = await post('/mj/submit/change', { taskId: id, action: 'VARIATION', index: 1 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 4, description: expect.stringMatching(/task_status_not_success/) });
    expect(mj.requests.filter((r) => r.path === '/mj/submit/change').length).toBe(changesBefore);
    expect(await balances(h, caller)).toEqual(before);

    await setOption('MjActionCheckSuccessEnabled', 'false');
    const through = await post('/mj/submit/change', { taskId: id, action: 'VARIATION', index: 1 });
    expect(through.body.code, through.body.description).toBe(1);
    expect(sent('/mj/submit/change')).toMatchObject({ taskId: id, action: 'VARIATION', index: 1 });
    const after = await balances(h, caller);
    expect(before.quota - after.quota).toBe(VARIATION);
    expect(before.remain - after.remain).toBe(VARIATION);
    await setOption('MjActionCheckSuccessEnabled', 'true');
  });
});
