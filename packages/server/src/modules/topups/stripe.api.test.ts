import { LogType } from '@modelgate/shared';
import { startFakeStripe, type FakeStripe } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { reconcile } from '../../ledger/reconcile.js';
import { capturePino } from '../../test-support/capture-logger.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const QUOTA_PER_DOLLAR = 500_000;

describe.each(testDbKinds())('Stripe top-up on %s', (kind) => {
  let srv: TestServer;
  let stripe: FakeStripe;
  let root: ApiClient;
  let alice: ApiClient;
  const { log, lines } = capturePino();

  const setOption = async (key: string, value: string) => expect((await root.put('/api/option/', { key, value })).body, key).toMatchObject({ success: true });
  const quota = async (id: number) => Number((await srv.ctx.db.db.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota);
  const order = (tradeNo: string) => srv.ctx.db.db.selectFrom('top_ups').selectAll().where('trade_no', '=', tradeNo).executeTakeFirstOrThrow();
  const ledger = async (tradeNo: string) =>
    (await srv.ctx.db.db.selectFrom('ledger_entries').selectAll().where('kind', '=', 'topup').where('ref', '=', tradeNo).execute()).map((e) => Number(e.quota_delta));
  const topUpLogs = async (id: number, tradeNo: string) =>
    (await srv.ctx.db.db.selectFrom('logs').selectAll().where('user_id', '=', id).where('type', '=', LogType.Topup).execute()).filter((l) => String(l.content).includes(tradeNo));
  const audits = async (tradeNo: string) => {
    return srv.ctx.db.db.selectFrom('audit_logs').selectAll().where('target_type', '=', 'topup').where('target_id', '=', tradeNo).orderBy('id').execute();
  };
  const warned = (text: string, tradeNo?: string) => lines.some((l) => l.level === 40 && String(l.msg).includes(text) && (!tradeNo || l.tradeNo === tradeNo));

  /** A Stripe order for `c`: its trade number and Checkout Session id. */
  async function placeOrder(c: ApiClient, amount: number): Promise<{ tradeNo: string; session: string }> {
    const r = await c.post('/api/user/stripe/pay', { amount });
    expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, message: 'success' });
    const tradeNo = r.body.data.trade_no as string;
    const s = stripe.sessionFor(tradeNo);
    expect(r.body.data.url).toBe(s.url);
    return { tradeNo, session: s.id };
  }

  beforeAll(async () => {
    srv = await startTestServer({ kind, log });
    root = await rootClient(srv.url);
    alice = await newUser(srv.url, 'alice');
    stripe = await startFakeStripe({ apiKey: 'sk_test_mg', webhookSecret: 'whsec_mg_endpoint' });
    stripe.setWebhookUrl(`${srv.url}/api/stripe/webhook`);
  });
  afterAll(async () => {
    await srv?.close();
    await stripe?.close();
  });

  it('stays off until the key, the webhook secret and the server address are set; then the status offers it', async () => {
    expect((await alice.post('/api/user/stripe/pay', { amount: 10 })).body).toMatchObject({ success: false, message: 'Stripe top-up is not enabled by the administrator' });
    const refused = await root.put('/api/option/', { key: 'StripeTopUpEnabled', value: 'true' });
    expect(refused.body.message).toMatch(/^Cannot enable Stripe top-up/);
    await setOption('ServerAddress', srv.url);
    await setOption('StripeApiBase', stripe.url);
    await setOption('StripeApiSecret', 'sk_test_mg');
    await setOption('StripeWebhookSecret', 'whsec_mg_endpoint');
    await setOption('StripeUnitPrice', '1.5');
    await setOption('StripeMinTopUp', '2');
    await setOption('StripeAmountOptions', JSON.stringify([50, 5, 10, 'x', 5]));
    await setOption('TopupGroupRatio', JSON.stringify({ default: 1, vip: 2 }));
    await setOption('StripeTopUpEnabled', 'true');
    const status = (await new ApiClient(srv.url).get('/api/status')).body.data;
    expect(status).toMatchObject({ enable_stripe_topup: true, stripe_unit_price: 1.5, stripe_currency: 'usd', stripe_min_topup: 2, stripe_amount_options: [5, 10, 50] });
    // The secrets never leave the server.
    const options = (await root.get('/api/option/')).body.data as Array<{ key: string }>;
    expect(options.map((o) => o.key)).not.toContain('StripeApiSecret');
    expect(options.map((o) => o.key)).not.toContain('StripeWebhookSecret');
  });

  it('quotes StripeUnitPrice × the group’s top-up ratio and refuses amounts below the minimum', async () => {
    expect((await alice.post('/api/user/stripe/amount', { amount: 10 })).body).toEqual({ success: true, message: 'success', data: '15.00' });
    expect((await alice.post('/api/user/stripe/amount', { amount: 1 })).body.message).toBe('The top-up amount cannot be less than: 2');
    expect((await alice.post('/api/user/stripe/amount', { amount: 2.5 })).body.message).toBe('The top-up amount must be a positive whole number');
    const vip = await newUser(srv.url, 'stripevip');
    await root.put('/api/user/', { id: vip.userId, group: 'vip' });
    expect((await vip.post('/api/user/stripe/amount', { amount: 10 })).body.data).toBe('30.00');
  });

  it('makes a pending order and a Checkout Session for exactly its price, the trade number the only thing in the return URLs', async () => {
    const { tradeNo, session } = await placeOrder(alice, 10);
    expect(tradeNo).toMatch(new RegExp(`^USR${alice.userId}NO[0-9A-Za-z]{6}\\d{10}$`));
    const row = await order(tradeNo);
    expect(row).toMatchObject({ status: 'pending', payment_method: 'stripe', gateway_ref: session, note: '' });
    expect([Number(row.amount), Number(row.quota), Number(row.money)]).toEqual([10, 10 * QUOTA_PER_DOLLAR, 15]);
    const s = stripe.session(session);
    expect(s).toMatchObject({ amount_total: 1500, currency: 'usd', client_reference_id: tradeNo, metadata: { trade_no: tradeNo, user_id: String(alice.userId) }, payment_intent_metadata: { trade_no: tradeNo } });
    expect(s.success_url).toBe(`${srv.url}/topup?stripe=success&trade_no=${tradeNo}`);
    expect(s.cancel_url).toBe(`${srv.url}/topup?stripe=cancel&trade_no=${tradeNo}`);
    const call = stripe.requests.find((r) => r.path === '/v1/checkout/sessions' && r.body.includes(tradeNo))!;
    expect(call.headers['idempotency-key']).toBe(`modelgate-${tradeNo}`);
    expect(call.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  });

  it('credits a session paid on the hosted page once: user, ledger and top-up log exact; replays change nothing', async () => {
    const before = await quota(alice.userId!);
    const { tradeNo, session } = await placeOrder(alice, 4);
    const page = await fetch(stripe.session(session).url);
    expect(await page.text()).toContain('6.00 USD');
    const paid = await fetch(stripe.session(session).url, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${srv.url}/topup?stripe=success&trade_no=${tradeNo}`);
    expect(stripe.deliveries.at(-1)).toMatchObject({ type: 'checkout.session.completed', status: 200 });
    const credited = before + 4 * QUOTA_PER_DOLLAR;
    expect(await quota(alice.userId!)).toBe(credited);
    expect(await ledger(tradeNo)).toEqual([4 * QUOTA_PER_DOLLAR]);
    const logs = await topUpLogs(alice.userId!, tradeNo);
    expect(logs.map((l) => [l.content, Number(l.quota)])).toEqual([[`在线充值成功，充值额度：＄4.000000 额度，支付金额：6.00 USD，订单号：${tradeNo}`, 4 * QUOTA_PER_DOLLAR]]);
    const row = await order(tradeNo);
    expect(row.status).toBe('success');
    expect(Math.abs(Number(row.complete_time) - Date.now() / 1000)).toBeLessThan(30);

    // The same event again and again (Stripe retries until it sees a 2xx): acknowledged, nothing more.
    const event = stripe.completedEvent(session);
    expect((await stripe.deliver(event, { times: 5 })).map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await quota(alice.userId!)).toBe(credited);
    expect(await ledger(tradeNo)).toEqual([4 * QUOTA_PER_DOLLAR]);
    expect(await topUpLogs(alice.userId!, tradeNo)).toHaveLength(1);
    // The user reads the order from the server after the redirect, whatever the address bar says.
    expect((await alice.get(`/api/topup/self?trade_no=${tradeNo}`)).body.data).toMatchObject({ status: 'success', quota: 4 * QUOTA_PER_DOLLAR, money: 6, payment_method: 'stripe' });
  });

  it('credits a first event delivered eight times at once exactly once', async () => {
    const before = await quota(alice.userId!);
    const { tradeNo, session } = await placeOrder(alice, 3);
    const results = await stripe.pay(session, { times: 8, concurrent: true });
    expect(results.map((d) => d.status)).toEqual(Array(8).fill(200));
    expect(await quota(alice.userId!)).toBe(before + 3 * QUOTA_PER_DOLLAR);
    expect(await ledger(tradeNo)).toEqual([3 * QUOTA_PER_DOLLAR]);
    expect(await topUpLogs(alice.userId!, tradeNo)).toHaveLength(1);
  });

  it('refuses a forged signature, a stale one, a missing one and a changed body with 400, crediting nothing', async () => {
    const before = await quota(alice.userId!);
    const { tradeNo, session } = await placeOrder(alice, 5);
    const event = stripe.completedEvent(session);
    expect((await stripe.deliver(event, { forgeSignature: true }))[0]).toMatchObject({ status: 400, body: '{"received":false}' });
    expect((await stripe.deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 3600 }))[0]!.status).toBe(400);
    // Signed, then the order edited in transit: the signature no longer matches.
    const body = JSON.stringify(event);
    const header = stripe.signature(body);
    const edited = body.replace(tradeNo, 'USR1NOxxxxxx1700000000');
    expect((await fetch(`${srv.url}/api/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: edited })).status).toBe(400);
    expect((await fetch(`${srv.url}/api/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(400);
    expect((await fetch(`${srv.url}/api/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, body: '{' })).status).toBe(400);
    expect(warned('signature does not verify')).toBe(true);
    expect(await quota(alice.userId!)).toBe(before);
    expect((await order(tradeNo)).status).toBe('pending');
    // The genuine event afterwards credits it.
    expect((await stripe.deliver(event))[0]!.status).toBe(200);
    expect(await quota(alice.userId!)).toBe(before + 5 * QUOTA_PER_DOLLAR);
    expect(await ledger(tradeNo)).toEqual([5 * QUOTA_PER_DOLLAR]);
  });

  it('refuses a paid event whose session, amount or currency is not the order’s', async () => {
    const bob = await newUser(srv.url, 'stripebob');
    const a = await placeOrder(alice, 2);
    const b = await placeOrder(bob, 2);
    const aliceBefore = await quota(alice.userId!);
    const bobBefore = await quota(bob.userId!);
    // Bob's session pointed at Alice's order: not the session made for it.
    await stripe.deliver(stripe.completedEvent(b.session, { client_reference_id: a.tradeNo, metadata: { trade_no: a.tradeNo } }));
    expect(warned('not the one made for this order', a.tradeNo)).toBe(true);
    // Alice's own session, paid for a cent, or in yen.
    await stripe.deliver(stripe.completedEvent(a.session, { amount_total: 1 }));
    await stripe.deliver(stripe.completedEvent(a.session, { currency: 'jpy', amount_total: 3 }));
    expect(warned('amount differs', a.tradeNo)).toBe(true);
    // A session that is complete but not paid yet (a delayed method): nothing to do.
    await stripe.deliver(stripe.completedEvent(a.session, { payment_status: 'unpaid' }));
    expect(await quota(alice.userId!)).toBe(aliceBefore);
    expect(await quota(bob.userId!)).toBe(bobBefore);
    expect((await order(a.tradeNo)).status).toBe('pending');
    // Another user's order is not readable by trade number either.
    expect((await alice.get(`/api/topup/self?trade_no=${b.tradeNo}`)).body.message).toBe('Top-up order does not exist');
    // The genuine events still credit each their own.
    await stripe.pay(a.session);
    await stripe.pay(b.session);
    expect(await quota(alice.userId!)).toBe(aliceBefore + 2 * QUOTA_PER_DOLLAR);
    expect(await quota(bob.userId!)).toBe(bobBefore + 2 * QUOTA_PER_DOLLAR);
  });

  it('records a refund on the order and in the audit log once, and keeps the quota', async () => {
    const { tradeNo, session } = await placeOrder(alice, 6);
    await stripe.pay(session);
    const credited = await quota(alice.userId!);
    const partial = stripe.refundEvent(session, { amount: 300 });
    expect((await stripe.deliver(partial))[0]!.status).toBe(200);
    expect(await order(tradeNo)).toMatchObject({ status: 'success', note: expect.stringMatching(/^partially refunded 3\.00 USD of 9\.00 USD \(ch_test_/) });
    const full = stripe.refundEvent(session);
    expect((await stripe.deliver(full, { times: 3 })).map((d) => d.status)).toEqual([200, 200, 200]);
    const row = await order(tradeNo);
    expect(row.status).toBe('refunded');
    expect(row.note).toMatch(/^refunded 9\.00 USD of 9\.00 USD \(ch_test_/);
    expect(await quota(alice.userId!)).toBe(credited);
    expect(await ledger(tradeNo)).toEqual([6 * QUOTA_PER_DOLLAR]);
    const entries = await audits(tradeNo);
    expect(entries.map((e) => [e.action, e.actor_name, Number(e.actor_id), Number(e.success)])).toEqual([
      ['topup.refund', 'stripe', 0, 1],
      ['topup.refund', 'stripe', 0, 1],
    ]);
    expect(JSON.parse(entries[1]!.details).changes).toEqual([
      { field: 'status', before: 'success', after: 'refunded' },
      { field: 'note', before: expect.stringMatching(/^partially/), after: row.note },
    ]);
    // The admin finds it in the order list by status.
    const refunded = (await root.get('/api/topup/?status=refunded')).body.data;
    expect(refunded.items.map((o: { trade_no: string }) => o.trade_no)).toContain(tradeNo);
    expect(refunded.items.find((o: { trade_no: string }) => o.trade_no === tradeNo)).toMatchObject({ payment_method: 'stripe', username: 'alice', money: 9, note: row.note });
  });

  it('never credits an order whose refund arrived before its payment event (out of order)', async () => {
    const before = await quota(alice.userId!);
    const { tradeNo, session } = await placeOrder(alice, 7);
    const completed = stripe.completedEvent(session);
    expect((await stripe.deliver(stripe.refundEvent(session)))[0]!.status).toBe(200);
    expect((await order(tradeNo)).status).toBe('refunded');
    expect((await stripe.deliver(completed))[0]!.status).toBe(200);
    expect(await quota(alice.userId!)).toBe(before);
    expect(await ledger(tradeNo)).toEqual([]);
    expect(await topUpLogs(alice.userId!, tradeNo)).toHaveLength(0);
    expect((await audits(tradeNo)).map((e) => e.action)).toEqual(['topup.refund']);
    // The refund named only the PaymentIntent: its metadata, read from the API, led to the order.
    expect(stripe.requests.some((r) => r.method === 'GET' && r.path.startsWith('/v1/payment_intents/'))).toBe(true);
  });

  it('records a dispute, and lists Stripe orders beside the others', async () => {
    const { tradeNo, session } = await placeOrder(alice, 8);
    await stripe.pay(session);
    const credited = await quota(alice.userId!);
    expect((await stripe.deliver(stripe.disputeEvent(session, { reason: 'product_not_received' }), { times: 2 })).map((d) => d.status)).toEqual([200, 200]);
    const row = await order(tradeNo);
    expect(row.status).toBe('disputed');
    expect(row.note).toMatch(/^disputed 12\.00 USD: product_not_received \(dp_test_/);
    expect(await quota(alice.userId!)).toBe(credited);
    expect((await audits(tradeNo)).map((e) => e.action)).toEqual(['topup.dispute']);
    expect(warned('topup.dispute recorded', tradeNo)).toBe(true);

    const list = (await root.get('/api/topup/?keyword=alice&p=0&page_size=100')).body.data;
    expect(list.items[0]).toMatchObject({ trade_no: tradeNo, payment_method: 'stripe', status: 'disputed' });
    expect(list.items.some((o: { payment_method: string; status: string }) => o.payment_method === 'stripe' && o.status === 'success')).toBe(true);
    // Events this site does not act on, and events for sessions it never made, are acknowledged.
    const stranger = stripe.completedEvent(session, { id: 'cs_test_unknown', client_reference_id: 'USR9NOabcdef1700000000', metadata: {} });
    expect((await stripe.deliver(stranger))[0]!.status).toBe(200);
    expect((await stripe.deliver({ ...stranger, type: 'customer.created' }))[0]!.status).toBe(200);
  });

  it('marks the order failed and says so when Stripe refuses or cannot be reached; nothing is credited', async () => {
    const FAILED = 'Could not reach Stripe to start the payment: the order is marked failed and nothing was charged; try again later';
    const before = await quota(alice.userId!);
    const latest = async () => (await srv.ctx.db.db.selectFrom('top_ups').selectAll().where('user_id', '=', alice.userId!).orderBy('id', 'desc').executeTakeFirstOrThrow());
    // Stripe refuses the key.
    await setOption('StripeApiSecret', 'sk_test_wrong');
    try {
      const r = await alice.post('/api/user/stripe/pay', { amount: 2 });
      expect(r.body).toEqual({ success: false, message: FAILED, data: FAILED });
      const refused = await latest();
      expect(refused).toMatchObject({ status: 'failed', payment_method: 'stripe', gateway_ref: '' });
      expect(refused.note).toMatch(/^checkout not started: StripeAuthenticationError/);
      expect(refused.note).not.toContain('sk_test');
      alice.lang = 'zh';
      expect((await alice.post('/api/user/stripe/pay', { amount: 2 })).body.data).toBe('无法连接 Stripe 发起支付：该订单已标记为失败，未产生任何扣款，请稍后再试');
    } finally {
      alice.lang = 'en';
      await setOption('StripeApiSecret', 'sk_test_mg');
    }
    // Stripe is down: a fake that stopped, so the connection is refused.
    const gone = await startFakeStripe({ apiKey: 'sk_test_mg', webhookSecret: 'whsec_mg_endpoint' });
    await gone.close();
    await setOption('StripeApiBase', gone.url);
    try {
      expect((await alice.post('/api/user/stripe/pay', { amount: 3 })).body).toEqual({ success: false, message: FAILED, data: FAILED });
      const down = await latest();
      expect(down).toMatchObject({ status: 'failed', amount: 3, gateway_ref: '' });
      expect(down.note).toMatch(/^checkout not started: StripeConnectionError/);
      // In the order lists as failed, never as pending.
      expect((await alice.get(`/api/topup/self?trade_no=${down.trade_no}`)).body.data).toMatchObject({ trade_no: down.trade_no, status: 'failed' });
      expect((await root.get(`/api/topup/?keyword=${down.trade_no}&p=0&page_size=10`)).body.data.items).toMatchObject([{ trade_no: down.trade_no, status: 'failed' }]);
    } finally {
      await setOption('StripeApiBase', stripe.url);
    }
    expect(await quota(alice.userId!)).toBe(before);
    // Back up: the next order goes through as usual, credited exactly once through the ledger.
    const { tradeNo, session } = await placeOrder(alice, 2);
    expect((await stripe.pay(session))[0]!.status).toBe(200);
    expect((await order(tradeNo)).status).toBe('success');
    expect(await quota(alice.userId!)).toBe(before + 2 * QUOTA_PER_DOLLAR);
    expect(await ledger(tradeNo)).toEqual([2 * QUOTA_PER_DOLLAR]);
    const books = await reconcile(srv.ctx.db.db);
    expect(books.mismatches).toEqual([]);
    expect(books.ok).toBe(true);
  });
});
