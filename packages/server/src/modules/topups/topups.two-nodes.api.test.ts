import { startFakeEpay, type FakeEpay } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/** Two servers over one database (one SQLite file, or one PostgreSQL / MySQL database): the gateway notifies both. */
describe.each(testDbKinds())('a top-up notified on two nodes over one %s database', (kind) => {
  let a: TestServer;
  let b: TestServer;
  let alice: ApiClient;
  let epay: FakeEpay;

  beforeAll(async () => {
    epay = await startFakeEpay({ pid: '42', key: 'two-node-key' });
    a = await startTestServer({ kind, env: { NODE_ID: 'node-a' } });
    const root = await rootClient(a.url);
    for (const [key, value] of [['ServerAddress', a.url], ['PayAddress', epay.url], ['EpayId', '42'], ['EpayKey', 'two-node-key']]) {
      expect((await root.put('/api/option/', { key, value })).body.success).toBe(true);
    }
    // Started after the options were saved, so it reads them at boot like any node.
    b = await startTestServer({ alongside: a, env: { NODE_ID: 'node-b' } });
    alice = await newUser(a.url, 'alice');
  });
  afterAll(async () => {
    await epay?.close();
    await b?.close();
    await a?.close();
  });

  it('credits once when ten notifications race on each node', async () => {
    const r = await alice.post('/api/user/pay', { amount: 3, payment_method: 'zfb' });
    expect(r.body.success).toBe(true);
    const tradeNo = epay.submit(r.body.data).outTradeNo;
    const [onA, onB] = await Promise.all([
      epay.notify(tradeNo, { times: 10, concurrent: true, url: `${a.url}/api/user/epay/notify` }),
      epay.notify(tradeNo, { times: 10, concurrent: true, url: `${b.url}/api/user/epay/notify`, method: 'POST' }),
    ]);
    expect([...onA, ...onB].map((n) => n.body)).toEqual(Array(20).fill('success'));
    const db = b.ctx.db.db;
    const row = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', alice.userId!).executeTakeFirstOrThrow();
    expect([Number(row.quota), Number(row.used_quota)]).toEqual([1_500_000, 0]);
    expect((await db.selectFrom('top_ups').select('status').where('trade_no', '=', tradeNo).executeTakeFirstOrThrow()).status).toBe('success');
    expect(await db.selectFrom('logs').select('id').where('user_id', '=', alice.userId!).where('type', '=', 1).execute()).toHaveLength(1);
    expect(await db.selectFrom('ledger_entries').select('id').where('kind', '=', 'topup').where('ref', '=', tradeNo).execute()).toHaveLength(1);
  });
});
