import { LogType } from '@modelgate/shared';
import { startFakeEpay, startFakeStripe, type FakeEpay, type FakeStripe } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../ledger/reconcile.js';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { capturePino } from '../../test-support/capture-logger.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';
import { randomAlnum } from '../users/password.js';
import { MAX_ACTIVE_SUBSCRIPTIONS } from './plans.service.js';

/**
 * Plans paid online (docs/ledger.md "Plans paid online"): a plan order through Epay or Stripe; the
 * confirmed payment credits the wallet and buys the plan from it in one transaction, once; a plan
 * that can no longer be bought leaves the credit in the wallet and the order says why.
 */
const PRICE = 300_000; // $0.60: Epay at Price 7.3 → 4.38; Stripe at 1.5 → 0.90 USD.

describe.each(testDbKinds())('plans paid online on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  let epay: FakeEpay;
  let stripe: FakeStripe;
  const { log, lines } = capturePino();

  const db = () => srv.ctx.db.db;
  const setOption = async (key: string, value: string) => expect((await root.put('/api/option/', { key, value })).body, key).toMatchObject({ success: true });
  const wallet = async (id: number) => {
    const u = await db().selectFrom('users').select(['quota', 'used_quota']).where('id', '=', id).executeTakeFirstOrThrow();
    return { quota: Number(u.quota), used: Number(u.used_quota) };
  };
  const order = (tradeNo: string) => db().selectFrom('top_ups').selectAll().where('trade_no', '=', tradeNo).executeTakeFirstOrThrow();
  const subscriptions = (userId: number) => db().selectFrom('user_plans').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  const entries = async (userId: number) =>
    (await db().selectFrom('ledger_entries').select(['kind', 'quota_delta', 'ref']).where('user_id', '=', userId).where('kind', 'in', ['topup', 'plan']).orderBy('id').execute()).map((e) => [
      e.kind,
      Number(e.quota_delta),
      e.ref,
    ]);
  const topUpLogs = async (userId: number) =>
    (await db().selectFrom('logs').select(['content', 'quota']).where('user_id', '=', userId).where('type', '=', LogType.Topup).orderBy('id').execute()).map((l) => [l.content, Number(l.quota)]);
  const warned = (text: string, tradeNo: string) => lines.some((l) => l.level === 40 && String(l.msg).includes(text) && l.tradeNo === tradeNo);

  /** A user with `quota` in the wallet (an admin's top-up through the ledger). */
  async function member(quota = 0): Promise<ApiClient & { id: number }> {
    const api = await newUser(srv.url, `pp${randomAlnum(8).toLowerCase()}`);
    if (quota) expect((await root.put('/api/user/', { id: api.userId, quota })).body.success).toBe(true);
    return Object.assign(api, { id: api.userId! });
  }

  async function plan(fields: Record<string, unknown> = {}): Promise<number> {
    const r = await root.post('/api/plan/', { name: `Pro ${randomAlnum(4)}`, price: PRICE, duration_days: 30, allowances: { day: { requests: 50 } }, ...fields });
    expect(r.body.success, r.body.message).toBe(true);
    return r.body.data.id as number;
  }

  /** A plan order through Epay, accepted by the gateway: its trade number. */
  async function epayOrder(c: ApiClient, planId: number, method = 'zfb'): Promise<string> {
    const r = await c.post('/api/user/plan/pay', { plan_id: planId, payment_method: method });
    expect(r.body.success, r.body.message).toBe(true);
    expect(r.body.data.url).toBe(`${epay.url}/submit.php`);
    epay.submit(r.body.data.fields);
    return r.body.data.trade_no as string;
  }

  beforeAll(async () => {
    srv = await startTestServer({ kind, log });
    root = await rootClient(srv.url);
    epay = await startFakeEpay({ pid: '1001', key: 'merchant-key' });
    stripe = await startFakeStripe({ apiKey: 'sk_test_mg', webhookSecret: 'whsec_mg_endpoint' });
    stripe.setWebhookUrl(`${srv.url}/api/stripe/webhook`);
  });
  afterAll(async () => {
    await epay?.close();
    await stripe?.close();
    await srv?.close();
  });

  it('is refused while no online payment method is enabled, and for a free, missing or off-sale plan', async () => {
    const m = await member();
    const planId = await plan();
    expect((await m.get(`/api/user/plan/payable?plan_id=${planId}`)).body).toMatchObject({ success: false, message: 'No online payment method is enabled by the administrator' });
    expect((await m.post('/api/user/plan/pay', { plan_id: planId, payment_method: 'zfb' })).body).toMatchObject({ success: false, message: 'Online top-up is not enabled by the administrator' });
    await setOption('ServerAddress', srv.url);
    await setOption('PayAddress', epay.url);
    await setOption('EpayId', '1001');
    await setOption('EpayKey', 'merchant-key');
    await setOption('MinTopUp', '5');
    await setOption('TopupGroupRatio', JSON.stringify({ default: 1, vip: 2 }));
    await setOption('StripeApiBase', stripe.url);
    await setOption('StripeApiSecret', 'sk_test_mg');
    await setOption('StripeWebhookSecret', 'whsec_mg_endpoint');
    await setOption('StripeUnitPrice', '1.5');
    await setOption('StripeTopUpEnabled', 'true');
    const free = await plan({ price: 0 });
    const off = await plan({ status: 2 });
    m.lang = 'zh';
    expect((await m.post('/api/user/plan/pay', { plan_id: free, payment_method: 'zfb' })).body.message).toBe('该套餐免费，请直接点击“余额购买”');
    m.lang = 'en';
    expect((await m.get(`/api/user/plan/payable?plan_id=${free}`)).body.message).toBe('This plan is free: buy it with your balance');
    expect((await m.post('/api/user/plan/pay', { plan_id: off, payment_method: 'zfb' })).body.message).toBe('This plan is not on sale');
    expect((await m.post('/api/user/plan/pay', { plan_id: 999_999, payment_method: 'stripe' })).body.message).toBe('Plan not found');
    expect((await m.post('/api/user/plan/pay', { plan_id: planId, payment_method: 'paypal' })).body.message).toBe('Unsupported payment method');
    expect((await m.post('/api/user/plan/pay', { plan_id: 'x', payment_method: 'zfb' })).body.success).toBe(false);
    expect(await db().selectFrom('top_ups').select('id').where('user_id', '=', m.id).execute()).toEqual([]);
  });

  it("quotes the plan's price as a top-up of that quota is, per method and group; MinTopUp does not apply", async () => {
    const m = await member();
    const planId = await plan();
    const r = await m.get(`/api/user/plan/payable?plan_id=${planId}`);
    expect(r.body.data).toEqual({
      plan_id: planId,
      price: PRICE,
      methods: [
        { method: 'zfb', money: '4.38', currency: 'CNY' },
        { method: 'wx', money: '4.38', currency: 'CNY' },
        { method: 'stripe', money: '0.90', currency: 'USD' },
      ],
    });
    expect((await root.put('/api/user/', { id: m.id, group: 'vip' })).body.success).toBe(true);
    expect((await m.get(`/api/user/plan/payable?plan_id=${planId}`)).body.data.methods.map((x: { money: string }) => x.money)).toEqual(['8.76', '8.76', '1.80']);
  });

  it('a paid Epay plan order credits the wallet and buys the plan in one go, once: wallet unchanged, plan running, ledger, log and reconciliation exact', async () => {
    const m = await member(123_456);
    const planId = await plan({ name: 'Pro monthly' });
    const tradeNo = await epayOrder(m, planId);
    const pending = await order(tradeNo);
    expect(pending).toMatchObject({ status: 'pending', payment_method: 'alipay', plan_error: '' });
    expect([Number(pending.plan_id), Number(pending.amount), Number(pending.quota), Number(pending.money), pending.subscription_id]).toEqual([planId, 0, PRICE, 4.38, null]);
    expect(epay.orders.at(-1)).toMatchObject({ name: `PLAN${planId}`, money: '4.38', returnUrl: `${srv.url}/topup` });
    expect(await subscriptions(m.id)).toEqual([]);

    expect((await epay.pay(tradeNo)).body).toBe('success');
    const subs = await subscriptions(m.id);
    expect(subs).toHaveLength(1);
    const sub = subs[0]!;
    expect([Number(sub.plan_id), Number(sub.status), Number(sub.price), Number(sub.granted_by), sub.name]).toEqual([planId, 1, PRICE, 0, 'Pro monthly']);
    expect(await wallet(m.id)).toEqual({ quota: 123_456, used: 0 });
    expect(await entries(m.id)).toEqual([
      ['topup', PRICE, tradeNo],
      ['plan', -PRICE, `plan:${sub.id}:0`],
    ]);
    expect(await topUpLogs(m.id)).toEqual([[`在线充值成功，充值额度：＄0.600000 额度，支付金额：4.38，订单号：${tradeNo}，已用于购买套餐「Pro monthly」`, PRICE]]);
    expect((await m.get(`/api/topup/self?trade_no=${tradeNo}`)).body.data).toMatchObject({ status: 'success', plan_id: planId, subscription_id: Number(sub.id), plan_error: '', quota: PRICE, amount: 0 });
    expect((await m.get('/api/user/plan/')).body.data[0]).toMatchObject({ id: Number(sub.id), status: 1, plan_id: planId });

    // Replayed, and ten at once: nothing more.
    expect((await epay.notify(tradeNo, { times: 5 })).map((r) => r.body)).toEqual(Array(5).fill('success'));
    expect((await epay.notify(tradeNo, { times: 10, concurrent: true, method: 'POST' })).map((r) => r.body)).toEqual(Array(10).fill('success'));
    expect(await subscriptions(m.id)).toHaveLength(1);
    expect(await wallet(m.id)).toEqual({ quota: 123_456, used: 0 });
    expect(await entries(m.id)).toHaveLength(2);
    expect(await topUpLogs(m.id)).toHaveLength(1);
    expect((await reconcile(db())).ok).toBe(true);
  });

  it('a first notification arriving ten times at once buys one plan', async () => {
    const m = await member();
    const tradeNo = await epayOrder(m, await plan(), 'wx');
    expect((await epay.notify(tradeNo, { times: 10, concurrent: true })).map((r) => r.body)).toEqual(Array(10).fill('success'));
    expect(await subscriptions(m.id)).toHaveLength(1);
    expect(await wallet(m.id)).toEqual({ quota: 0, used: 0 });
    expect((await reconcile(db())).ok).toBe(true);
  });

  it('a paid Stripe plan order buys the plan the same way; the hosted page names the plan', async () => {
    const m = await member(1000);
    const planId = await plan({ name: 'Team 周卡' });
    const r = await m.post('/api/user/plan/pay', { plan_id: planId, payment_method: 'stripe' });
    expect(r.body.success, r.body.message).toBe(true);
    const tradeNo = r.body.data.trade_no as string;
    const session = stripe.sessionFor(tradeNo);
    expect(r.body.data).toEqual({ trade_no: tradeNo, url: session.url, fields: {} });
    expect(session).toMatchObject({ amount_total: 90, currency: 'usd', name: 'Team 周卡', metadata: { trade_no: tradeNo, user_id: String(m.id), plan_id: String(planId) } });
    expect((await stripe.pay(session.id, { times: 4, concurrent: true })).map((d) => d.status)).toEqual([200, 200, 200, 200]);
    const subs = await subscriptions(m.id);
    expect(subs.map((s) => [Number(s.plan_id), Number(s.status)])).toEqual([[planId, 1]]);
    expect(await wallet(m.id)).toEqual({ quota: 1000, used: 0 });
    expect(await topUpLogs(m.id)).toEqual([[`在线充值成功，充值额度：＄0.600000 额度，支付金额：0.90 USD，订单号：${tradeNo}，已用于购买套餐「Team 周卡」`, PRICE]]);
    expect((await order(tradeNo)).subscription_id).not.toBeNull();
    expect((await reconcile(db())).ok).toBe(true);
  });

  it('a plan off sale, deleted or dearer by the time the payment comes leaves the credit in the wallet and the order says why', async () => {
    const m = await member(5);
    const offSale = await plan();
    const deleted = await plan();
    const dearer = await plan();
    const cases = [
      { planId: offSale, change: () => root.put('/api/plan/', { id: offSale, status: 2 }), code: 'PLAN_PAID_OFF_SALE', en: 'the plan is no longer on sale', zh: '套餐已停售' },
      { planId: deleted, change: () => root.del(`/api/plan/${deleted}`), code: 'PLAN_PAID_PLAN_GONE', en: 'the plan no longer exists', zh: '套餐已被删除' },
      { planId: dearer, change: () => root.put('/api/plan/', { id: dearer, price: PRICE + 1 }), code: 'PLAN_PAID_PRICE_RAISED', en: 'the plan costs more than when you ordered it', zh: '下单后套餐涨价了' },
    ];
    let expected = 5;
    for (const c of cases) {
      const tradeNo = await epayOrder(m, c.planId);
      expect((await c.change()).body.success).toBe(true);
      expect((await epay.pay(tradeNo)).body).toBe('success');
      expected += PRICE;
      expect(await wallet(m.id)).toEqual({ quota: expected, used: 0 });
      const row = await order(tradeNo);
      expect([row.status, row.plan_error, row.subscription_id, row.note]).toEqual(['success', c.code, null, `plan #${c.planId} not bought: ${c.en}; the payment stays in the balance`]);
      expect((await topUpLogs(m.id)).at(-1)).toEqual([`在线充值成功，充值额度：＄0.600000 额度，支付金额：4.38，订单号：${tradeNo}，套餐未能购买（${c.zh}），额度已留在余额中`, PRICE]);
      // Replays do not buy it later either.
      await epay.notify(tradeNo, { times: 2 });
    }
    expect(await subscriptions(m.id)).toEqual([]);
    expect(await wallet(m.id)).toEqual({ quota: expected, used: 0 });
    expect((await reconcile(db())).ok).toBe(true);
  });

  it('a plan made cheaper meanwhile is bought at its new price; the difference stays in the wallet', async () => {
    const m = await member();
    const planId = await plan();
    const tradeNo = await epayOrder(m, planId);
    expect((await root.put('/api/plan/', { id: planId, price: 100_000 })).body.success).toBe(true);
    await epay.pay(tradeNo);
    const [sub] = await subscriptions(m.id);
    expect(Number(sub!.price)).toBe(100_000);
    expect(await wallet(m.id)).toEqual({ quota: PRICE - 100_000, used: 0 });
    expect(await entries(m.id)).toEqual([
      ['topup', PRICE, tradeNo],
      ['plan', -100_000, `plan:${sub!.id}:0`],
    ]);
  });

  it(`a user already at ${MAX_ACTIVE_SUBSCRIPTIONS} running plans keeps the payment in the wallet`, async () => {
    const m = await member();
    const free = await plan({ price: 0 });
    for (let i = 0; i < MAX_ACTIVE_SUBSCRIPTIONS; i++) expect((await m.post('/api/user/plan/buy', { plan_id: free })).body.success).toBe(true);
    const tradeNo = await epayOrder(m, await plan());
    await epay.pay(tradeNo);
    expect(await order(tradeNo)).toMatchObject({ status: 'success', plan_error: 'PLAN_PAID_TOO_MANY' });
    expect(await subscriptions(m.id)).toHaveLength(MAX_ACTIVE_SUBSCRIPTIONS);
    expect(await wallet(m.id)).toEqual({ quota: PRICE, used: 0 });
    expect((await reconcile(db())).ok).toBe(true);
  });

  it("refuses a forged notification, another amount and another user's order; a repeated click makes one order", async () => {
    const owner = await member();
    const thief = await member();
    const planId = await plan();
    const tradeNo = await epayOrder(owner, planId);
    expect((await epay.notify(tradeNo, { forgeSignature: true }))[0]!.body).toBe('fail');
    expect((await epay.notify(tradeNo, { money: '0.01' }))[0]!.body).toBe('fail');
    expect(warned('amount differs', tradeNo)).toBe(true);
    expect((await order(tradeNo)).status).toBe('pending');
    expect(await subscriptions(owner.id)).toEqual([]);
    expect(await wallet(owner.id)).toEqual({ quota: 0, used: 0 });
    // Another user can neither read the order nor have it bought for them.
    expect((await thief.get(`/api/topup/self?trade_no=${tradeNo}`)).body).toMatchObject({ success: false, message: 'Top-up order does not exist' });
    await epay.pay(tradeNo);
    expect(await subscriptions(thief.id)).toEqual([]);
    expect(await wallet(thief.id)).toEqual({ quota: 0, used: 0 });
    expect(await subscriptions(owner.id)).toHaveLength(1);

    // The same submission twice (a double click that reached the server twice): one order.
    const key = { 'Idempotency-Key': `mg-${randomAlnum(20)}` };
    const [a, b] = await Promise.all([0, 1].map(() => owner.call('POST', '/api/user/plan/pay', { plan_id: planId, payment_method: 'stripe' }, key)));
    expect(a!.body.data.trade_no).toBe(b!.body.data.trade_no);
    expect(await db().selectFrom('top_ups').select('id').where('user_id', '=', owner.id).where('payment_method', '=', 'stripe').execute()).toHaveLength(1);
  });
});
