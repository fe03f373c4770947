import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../../lib/api';
import { button } from '../../test/dom';
import { aPlan as basePlan, aSelfUser, aSubscription, aTopUpOrder, DEFAULT_STATUS } from '../../test/fixtures';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';
import type { Plan, PlanPayable } from './api';

/** The plans of these tests: $1, 100 requests a day. */
const aPlan = (id: number, overrides: Partial<Plan> = {}): Plan => basePlan(id, { price: 1_000_000, allowances: { day: { quota: 0, requests: 100 } }, ...overrides });

const payable: PlanPayable = {
  plan_id: 7,
  price: 1_000_000,
  methods: [
    { method: 'zfb', money: '14.60', currency: 'CNY' },
    { method: 'wx', money: '14.60', currency: 'CNY' },
    { method: 'stripe', money: '3.00', currency: 'USD' },
  ],
};
const self = () => ok(aSelfUser(2, { quota: 0 }));
const online = { ...DEFAULT_STATUS, enable_online_topup: true, enable_stripe_topup: true };

afterEach(() => vi.restoreAllMocks());

describe('paying a plan online from the wallet', () => {
  it('offers "Pay online" beside "Buy with balance", quotes each method and posts the signed form of the chosen one', async () => {
    const submit = vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => {});
    const fields = { pid: '1001', type: 'alipay', out_trade_no: 'USR2NOabcdef1700000000', name: 'PLAN7', money: '14.60', sign: 'f'.repeat(32), sign_type: 'MD5' };
    const server = mockApi({
      'GET /api/status': () => ok(online),
      'GET /api/user/self': self,
      'GET /api/user/plan/': () => ok([]),
      'GET /api/user/plan/available': () => ok([aPlan(7, { name: 'Starter' }), aPlan(8, { name: 'Free tier', price: 0 })]),
      'GET /api/user/plan/payable': () => ok(payable),
      'POST /api/user/plan/pay': () => ok({ trade_no: fields.out_trade_no, url: 'http://pay.example.com/submit.php', fields }),
    });
    renderApp('/topup', PLAIN_USER);
    const [starter, free] = await screen.findAllByTestId('plan-offer');
    expect(button(starter!, '余额购买')).toBeTruthy();
    // A free plan is only bought with the balance.
    expect(within(free!).queryByText('在线支付')).toBeNull();
    fireEvent.click(button(starter!, '在线支付'));
    const dialog = await screen.findByTestId('plan-pay');
    expect(within(dialog).getByText('价格：$2.00')).toBeTruthy();
    await waitFor(() => expect(within(dialog).getByText('支付宝 · ¥14.60')).toBeTruthy());
    expect(within(dialog).getByText('微信支付 · ¥14.60')).toBeTruthy();
    expect(within(dialog).getByText('Stripe · 3.00 USD')).toBeTruthy();
    expect(server.find('GET', '/api/user/plan/payable')[0]!.query.get('plan_id')).toBe('7');
    fireEvent.click(button(dialog, '支付宝 · ¥14.60'));
    await waitFor(() => expect(submit).toHaveBeenCalledTimes(1));
    expect(server.find('POST', '/api/user/plan/pay')[0]!.body).toEqual({ plan_id: 7, payment_method: 'zfb' });
    const form = submit.mock.contexts[0] as HTMLFormElement;
    expect(form.action).toBe('http://pay.example.com/submit.php');
    expect(Object.fromEntries(new FormData(form))).toEqual(fields);
    // Clicked again while the browser leaves for the gateway: no second order.
    fireEvent.click(button(dialog, '支付宝 · ¥14.60'));
    fireEvent.click(button(dialog, '微信支付 · ¥14.60'));
    await new Promise((r) => setTimeout(r, 300));
    expect(server.find('POST', '/api/user/plan/pay')).toHaveLength(1);
    expect(submit).toHaveBeenCalledTimes(1);
  });

  it("goes to Stripe's hosted page, and shows the server's refusal", async () => {
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => undefined);
    let refuse = true;
    mockApi({
      'GET /api/status': () => ok(online),
      'GET /api/user/self': self,
      'GET /api/user/plan/': () => ok([]),
      'GET /api/user/plan/available': () => ok([aPlan(7)]),
      'GET /api/user/plan/payable': () => ok(payable),
      'POST /api/user/plan/pay': () => (refuse ? { success: false, message: '该套餐已停售' } : ok({ trade_no: 'USR2NOx', url: 'https://checkout.stripe.com/c/pay/cs_1', fields: {} })),
    });
    renderApp('/topup', PLAIN_USER);
    fireEvent.click(button(await screen.findByTestId('plan-offer'), '在线支付'));
    const dialog = await screen.findByTestId('plan-pay');
    fireEvent.click(await within(dialog).findByText('Stripe · 3.00 USD'));
    expect(await screen.findByText('该套餐已停售')).toBeTruthy();
    refuse = false;
    fireEvent.click(within(dialog).getByText('Stripe · 3.00 USD'));
    await waitFor(() => expect(redirect).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_1'));
  });

  it('has no "Pay online" while no online payment method is enabled', async () => {
    mockApi({ 'GET /api/status': () => ok(DEFAULT_STATUS), 'GET /api/user/self': self, 'GET /api/user/plan/': () => ok([]), 'GET /api/user/plan/available': () => ok([aPlan(7)]) });
    renderApp('/topup', PLAIN_USER);
    const offer = await screen.findByTestId('plan-offer');
    expect(button(offer, '余额购买')).toBeTruthy();
    expect(within(offer).queryByText('在线支付')).toBeNull();
  });

  it('back from the gateway: the plan running, or the payment left in the balance and why', async () => {
    let order = aTopUpOrder(1, { amount: 0, quota: 1_000_000, money: 14.6, status: 'success', plan_id: 7, subscription_id: 12 });
    mockApi({
      'GET /api/user/self': self,
      'GET /api/user/plan/': () => ok([aSubscription(12, { name: 'Starter', plan_id: 7, fall_through: true, duration_days: 30, allowances: { day: { quota: 0, requests: 100 } }, meters: [] })]),
      'GET /api/user/plan/available': () => ok([]),
      'GET /api/topup/self': () => ok(order),
    });
    const first = renderApp('/topup?out_trade_no=USR2NOabcdef1700000001', PLAIN_USER);
    expect(await screen.findByText('支付成功：套餐「Starter」已生效')).toBeTruthy();
    first.unmount();
    order = { ...order, subscription_id: 0, plan_error: 'PLAN_PAID_OFF_SALE' };
    renderApp('/topup?out_trade_no=USR2NOabcdef1700000002', PLAIN_USER);
    expect(await screen.findByText('支付成功，$2.00 已加入您的余额，但套餐未能购买：套餐已停售')).toBeTruthy();
  });

  it("marks a plan order in the admin's order list, with why its plan was not bought", async () => {
    mockApi({
      'GET /api/user/self': self,
      'GET /api/topup/': () =>
        ok({ items: [aTopUpOrder(5, { amount: 0, quota: 1_000_000, status: 'success', plan_id: 7, plan_error: 'PLAN_PAID_OFF_SALE', note: 'plan #7 not bought: the plan is no longer on sale; the payment stays in the balance' })], total: 1, page: 1, page_size: 10 }),
    });
    renderApp('/topup?tab=orders', ROOT_USER);
    const row = await waitFor(() => {
      const found = document.querySelector<HTMLElement>('.ant-table-tbody tr.ant-table-row');
      expect(found).not.toBeNull();
      return found!;
    });
    expect(within(row).getByText('$2.00 · 套餐 #7')).toBeTruthy();
    expect(within(row).getByText(/^plan #7 not bought/)).toBeTruthy();
  });
});
