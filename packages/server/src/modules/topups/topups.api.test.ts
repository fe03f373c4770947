import { LogType } from '@modelgate/shared';
import { startFakeEpay, type FakeEpay } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { capturePino } from '../../test-support/capture-logger.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

describe.each(testDbKinds())('online top-up on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  let alice: ApiClient;
  let epay: FakeEpay;
  const { log, lines } = capturePino();

  const setOption = async (key: string, value: string) => expect((await root.put('/api/option/', { key, value })).body).toMatchObject({ success: true });
  const user = (id: number) => srv.ctx.db.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', id).executeTakeFirstOrThrow();
  const order = (tradeNo: string) => srv.ctx.db.db.selectFrom('top_ups').selectAll().where('trade_no', '=', tradeNo).executeTakeFirstOrThrow();
  const topUpLogs = (id: number) => srv.ctx.db.db.selectFrom('logs').selectAll().where('user_id', '=', id).where('type', '=', LogType.Topup).execute();
  const warnings = (text: string) => lines.filter((l) => l.level === 40 && String(l.msg).includes(text));

  /** A pending order for `c`, accepted by the gateway; answers its trade number. */
  async function placeOrder(c: ApiClient, amount: number, method = 'zfb'): Promise<string> {
    const r = await c.post('/api/user/pay', { amount, top_up_code: '', payment_method: method });
    expect(r.body).toMatchObject({ success: true, message: 'success' });
    epay.submit(r.body.data);
    return r.body.data.out_trade_no as string;
  }

  beforeAll(async () => {
    srv = await startTestServer({ kind, log });
    root = await rootClient(srv.url);
    alice = await newUser(srv.url, 'alice');
    epay = await startFakeEpay({ pid: '1001', key: 'merchant-key' });
  });
  afterAll(async () => {
    await epay?.close();
    await srv?.close();
  });

  it('refuses quotes and orders while online top-up is off', async () => {
    expect((await alice.get('/api/status')).body.data.enable_online_topup).toBe(false);
    const r = await alice.post('/api/user/amount', { amount: 10, top_up_code: '' });
    expect(r.body).toEqual({ success: false, message: 'Online top-up is not enabled by the administrator', data: 'Online top-up is not enabled by the administrator' });
    alice.lang = 'zh';
    expect((await alice.post('/api/user/pay', { amount: 10, payment_method: 'zfb' })).body.data).toBe('管理员未开启在线充值！');
    alice.lang = 'en';
    expect(await srv.ctx.db.db.selectFrom('top_ups').selectAll().execute()).toEqual([]);
  });

  it('needs the server address before the payment settings, then turns online top-up on', async () => {
    expect((await root.put('/api/option/', { key: 'PayAddress', value: epay.url })).body.message).toBe('Please fill in the server address first');
    await setOption('ServerAddress', srv.url);
    await setOption('PayAddress', `${epay.url}/`);
    await setOption('EpayId', '1001');
    await setOption('EpayKey', 'merchant-key');
    await setOption('MinTopUp', '2');
    await setOption('TopupGroupRatio', JSON.stringify({ default: 1, vip: 2 }));
    const status = (await alice.get('/api/status')).body.data;
    expect(status).toMatchObject({ enable_online_topup: true, min_topup: 2, price: 7.3 });
  });

  it('quotes Price × the group’s top-up ratio and refuses bad amounts with their own messages', async () => {
    expect((await alice.post('/api/user/amount', { amount: 10, top_up_code: '' })).body).toEqual({ success: true, message: 'success', data: '73.00' });
    expect((await alice.post('/api/user/amount', { amount: '3' })).body.data).toBe('21.90');
    const vip = await newUser(srv.url, 'vipper');
    await root.put('/api/user/', { id: vip.userId, group: 'vip' });
    expect((await vip.post('/api/user/amount', { amount: 10 })).body.data).toBe('146.00');
    expect((await alice.post('/api/user/amount', { amount: 1 })).body).toMatchObject({ success: false, message: 'The top-up amount cannot be less than: 2' });
    expect((await alice.post('/api/user/amount', { amount: 'ten' })).body.message).toBe('The top-up amount must be a positive whole number');
    expect((await alice.post('/api/user/amount', { amount: 2.5 })).body.message).toBe('The top-up amount must be a positive whole number');
    expect((await alice.post('/api/user/amount', {})).body.message).toBe('The top-up amount must be a positive whole number');
    expect((await alice.post('/api/user/amount', { amount: 1e300 })).body.message).toBe('The top-up amount must be a positive whole number');
    alice.lang = 'zh';
    expect((await alice.post('/api/user/amount', { amount: 1 })).body.data).toBe('充值数量不能小于: 2');
    alice.lang = 'en';
    // Currency display off: amounts are quota units, the minimum is MinTopUp dollars' worth of them.
    await setOption('DisplayInCurrencyEnabled', 'false');
    expect((await alice.post('/api/user/amount', { amount: 1_000_000 })).body.data).toBe('14.60');
    expect((await alice.post('/api/user/amount', { amount: 999_999 })).body.message).toBe('The top-up amount cannot be less than: 1000000');
    await setOption('DisplayInCurrencyEnabled', 'true');
  });

  it('creates a pending order with a form the gateway accepts as signed', async () => {
    const r = await alice.post('/api/user/pay', { amount: 10, top_up_code: '', payment_method: 'zfb' });
    expect(r.body).toMatchObject({ success: true, message: 'success', url: `${epay.url}/submit.php` });
    const f = r.body.data as Record<string, string>;
    expect(f).toMatchObject({
      pid: '1001',
      type: 'alipay',
      notify_url: `${srv.url}/api/user/epay/notify`,
      return_url: `${srv.url}/topup`,
      name: 'TUC10',
      money: '73.00',
      device: 'pc',
      sign_type: 'MD5',
    });
    expect(f.out_trade_no).toMatch(new RegExp(`^USR${alice.userId}NO[0-9A-Za-z]{6}\\d{10}$`));
    expect(epay.submit(f).money).toBe('73.00');
    const row = await order(f.out_trade_no!);
    expect(row).toMatchObject({ status: 'pending', payment_method: 'alipay' });
    expect([Number(row.user_id), Number(row.amount), Number(row.quota), Number(row.money), Number(row.complete_time)]).toEqual([alice.userId, 10, 5_000_000, 73, 0]);
    expect((await alice.post('/api/user/pay', { amount: 10, payment_method: 'wx' })).body.data.type).toBe('wxpay');
    expect((await alice.post('/api/user/pay', { amount: 10, payment_method: 'paypal' })).body.message).toBe('Unsupported payment method');
  });

  it('refuses an order while the server address is unset, in zh and en', async () => {
    await setOption('ServerAddress', '');
    expect((await alice.post('/api/user/pay', { amount: 10, payment_method: 'zfb' })).body).toMatchObject({ success: false, data: 'Please fill in the server address first' });
    alice.lang = 'zh';
    expect((await alice.post('/api/user/pay', { amount: 10, payment_method: 'zfb' })).body.message).toBe('请先填写服务器地址');
    alice.lang = 'en';
    await setOption('ServerAddress', srv.url);
  });

  it('credits a paid order once, however often the notification is replayed', async () => {
    const before = await user(alice.userId!);
    const tradeNo = await placeOrder(alice, 5);
    expect((await epay.pay(tradeNo)).body).toBe('success');
    const paid = await order(tradeNo);
    expect(paid.status).toBe('success');
    expect(Math.abs(Number(paid.complete_time) - Date.now() / 1000)).toBeLessThan(30);
    const expected = { quota: Number(before.quota) + 2_500_000, used_quota: Number(before.used_quota) };
    expect(await user(alice.userId!)).toEqual(expected);

    const replays = await epay.notify(tradeNo, { times: 10 });
    expect(replays.map((r) => r.body)).toEqual(Array(10).fill('success'));
    const raced = await epay.notify(tradeNo, { times: 10, concurrent: true, method: 'POST' });
    expect(raced.map((r) => r.body)).toEqual(Array(10).fill('success'));
    expect(await user(alice.userId!)).toEqual(expected);
    const mine = (await topUpLogs(alice.userId!)).filter((l) => String(l.content).includes(tradeNo));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.content).toBe(`在线充值成功，充值额度：＄5.000000 额度，支付金额：36.50，订单号：${tradeNo}`);
    expect(Number(mine[0]!.quota)).toBe(2_500_000);
    const entries = await srv.ctx.db.db.selectFrom('ledger_entries').selectAll().where('kind', '=', 'topup').where('ref', '=', tradeNo).execute();
    expect(entries.map((e) => Number(e.quota_delta))).toEqual([2_500_000]);
  });

  it('credits a first notification that arrives ten times at once exactly once', async () => {
    const before = Number((await user(alice.userId!)).quota);
    const tradeNo = await placeOrder(alice, 2);
    const results = await epay.notify(tradeNo, { times: 10, concurrent: true });
    expect(results.map((r) => r.body)).toEqual(Array(10).fill('success'));
    expect(Number((await user(alice.userId!)).quota)).toBe(before + 1_000_000);
  });

  it('refuses a forged signature, another amount, an unknown trade number and another merchant; logs each; credits nothing', async () => {
    const before = await user(alice.userId!);
    const tradeNo = await placeOrder(alice, 3);
    expect((await epay.notify(tradeNo, { forgeSignature: true }))[0]!.body).toBe('fail');
    expect(warnings('signature').some((l) => l.tradeNo === tradeNo)).toBe(true);
    expect((await epay.notify(tradeNo, { money: '0.01' }))[0]!.body).toBe('fail');
    expect(warnings('amount differs').some((l) => l.tradeNo === tradeNo && l.paid === '0.01' && l.expected === '21.90')).toBe(true);
    expect((await epay.notify(tradeNo, { outTradeNo: 'USR1NOnothing1700000000' }))[0]!.body).toBe('fail');
    expect(warnings('unknown trade number').length).toBeGreaterThan(0);
    const otherMerchant = new URLSearchParams({ pid: '2002', out_trade_no: tradeNo, money: '21.90', trade_status: 'TRADE_SUCCESS' });
    expect(await (await fetch(`${srv.url}/api/user/epay/notify?${otherMerchant}&sign=${'0'.repeat(32)}`)).text()).toBe('fail');
    expect(await (await fetch(`${srv.url}/api/user/epay/notify`)).text()).toBe('fail');
    // A payment the gateway reports as not (yet) successful is acknowledged and changes nothing.
    expect((await epay.notify(tradeNo, { tradeStatus: 'WAIT_BUYER_PAY' }))[0]!.body).toBe('success');
    expect((await order(tradeNo)).status).toBe('pending');
    expect(await user(alice.userId!)).toEqual({ quota: Number(before.quota), used_quota: Number(before.used_quota) });
    // The real one still works afterwards.
    expect((await epay.pay(tradeNo)).body).toBe('success');
    expect(Number((await user(alice.userId!)).quota)).toBe(Number(before.quota) + 1_500_000);
  });

  it('sends the notification to the custom callback address when one is set', async () => {
    await setOption('CustomCallbackAddress', 'https://callback.example.com');
    const r = await alice.post('/api/user/pay', { amount: 2, payment_method: 'zfb' });
    expect(r.body.data.notify_url).toBe('https://callback.example.com/api/user/epay/notify');
    expect(r.body.data.return_url).toBe(`${srv.url}/topup`);
    await setOption('CustomCallbackAddress', '');
  });

  it('shows a user their own order and an admin every order, by trade number, username and status', async () => {
    const tradeNo = await placeOrder(alice, 4, 'wx');
    const mine = await alice.get(`/api/topup/self?trade_no=${tradeNo}`);
    expect(mine.body.data).toMatchObject({ trade_no: tradeNo, status: 'pending', amount: 4, quota: 2_000_000, money: 29.2, username: 'alice', payment_method: 'wxpay', complete_time: 0 });
    const bob = await newUser(srv.url, 'bob');
    expect((await bob.get(`/api/topup/self?trade_no=${tradeNo}`)).body.message).toBe('Top-up order does not exist');
    expect((await bob.get('/api/topup/')).body.success).toBe(false);

    const all = (await root.get('/api/topup/?p=0&page_size=100')).body.data;
    expect(all.items[0].trade_no).toBe(tradeNo);
    expect(all.total).toBe(all.items.length);
    const byUser = (await root.get('/api/topup/?keyword=alice&status=success')).body.data;
    expect(byUser.items.length).toBeGreaterThanOrEqual(3);
    expect(byUser.items.every((o: { status: string; username: string }) => o.status === 'success' && o.username === 'alice')).toBe(true);
    const byTrade = (await root.get(`/api/topup/?keyword=${tradeNo.slice(-12)}&status=`)).body.data;
    expect(byTrade.items.map((o: { trade_no: string }) => o.trade_no)).toEqual([tradeNo]);
  });
});
