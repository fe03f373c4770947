import { startFakeMj, type FakeMj } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, balances, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const ENV = { TASK_POLL_INTERVAL_MS: '60' };

describe.each(testDbKinds())('Midjourney poller on two nodes (%s)', (kind) => {
  let a: TestServer;
  let b: TestServer;
  let mj: FakeMj;
  let h: RelayHarness;

  beforeAll(async () => {
    a = await startTestServer({ kind, env: { ...ENV, NODE_ID: 'node-a' } });
    b = await startTestServer({ kind, env: { ...ENV, NODE_ID: 'node-b' }, alongside: a });
    mj = await startFakeMj({ stepMs: 40 });
    const root = await rootClient(a.url);
    h = { server: a, root, fake: undefined as never, close: async () => undefined };
    await addChannel(root, { type: 2, key: 'any', base_url: mj.url, models: 'mj_imagine' });
  });
  afterAll(async () => {
    await mj?.close();
    await b?.close();
    await a?.close();
  });

  it('the scheduled poller (one node at a time) finishes a task and refunds a failed one exactly once', async () => {
    const c = await addCaller(h, { quota: 500_000, remain: 500_000 });
    const submit = async (url: string, prompt: string) => {
      const res = await fetch(`${url}/mj/submit/imagine`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer sk-${c.key}` }, body: JSON.stringify({ prompt }) });
      return ((await res.json()) as { result: string }).result;
    };
    const good = await submit(a.url, 'a lighthouse');
    const bad = await submit(b.url, 'explode it');
    const fetchTask = async (id: string) => (await (await fetch(`${b.url}/mj/task/${id}/fetch`, { headers: { 'mj-api-secret': `sk-${c.key}` } })).json()) as { status: string };
    for (let i = 0; i < 150; i++) {
      if ((await fetchTask(good)).status === 'SUCCESS' && (await fetchTask(bad)).status === 'FAILURE') break;
      await new Promise((r) => setTimeout(r, 40));
    }
    expect((await fetchTask(good)).status).toBe('SUCCESS');
    expect((await fetchTask(bad)).status).toBe('FAILURE');
    // A few more poll periods on both nodes change nothing.
    await new Promise((r) => setTimeout(r, 300));
    expect(await balances(h, c)).toMatchObject({ quota: 450_000, userUsed: 50_000, remain: 400_000 });
    const refunds = await a.ctx.db.db.selectFrom('ledger_entries').select('quota_delta').where('kind', '=', 'refund').where('user_id', '=', c.userId).execute();
    expect(refunds.map((r) => Number(r.quota_delta))).toEqual([50_000]);
  });
});
