import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../../lib/api';
import { button } from '../../test/dom';
import { aSelfUser, aTopUpOrder, DEFAULT_STATUS } from '../../test/fixtures';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';

const self = () => ok(aSelfUser(2, { quota: 0 }));
const stripeOn = { ...DEFAULT_STATUS, enable_stripe_topup: true, stripe_unit_price: 1.5, stripe_currency: 'usd', stripe_min_topup: 2, stripe_amount_options: [1, 5, 20] };

afterEach(() => vi.restoreAllMocks());

describe('Stripe top-up in the wallet', () => {
  it('offers the amounts from the minimum, quotes in the Stripe currency, refuses less than the minimum and opens Stripe’s page', async () => {
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => undefined);
    const server = mockApi({
      'GET /api/status': () => ok(stripeOn),
      'GET /api/user/self': self,
      'POST /api/user/stripe/amount': (call) => ({ success: true, message: 'success', data: (Number(call.body?.amount) * 1.5).toFixed(2) }),
      'POST /api/user/stripe/pay': () => ({ success: true, message: 'success', data: { url: 'https://checkout.stripe.com/c/pay/cs_test_1', trade_no: 'USR2NOabcdef1700000000' } }),
    });
    renderApp('/topup', PLAIN_USER);
    const payable = await screen.findByTestId('stripe-payable');
    // The Epay card is not shown beside it while Epay is off; $1 is below the minimum and not offered.
    expect(screen.queryByText('管理员未开启在线充值！')).toBeNull();
    expect(() => button(document, '$1')).toThrow();
    await waitFor(() => expect(payable.textContent).toContain('7.50 USD'));
    fireEvent.click(button(document, '$20'));
    await waitFor(() => expect(payable.textContent).toContain('30.00 USD'));

    const amount = screen.getByLabelText('银行卡充值数量');
    fireEvent.change(amount, { target: { value: '1' } });
    await waitFor(() => expect(payable.textContent).toBe('充值数量不能小于 $2'));
    fireEvent.click(button(document, '使用 Stripe 支付'));
    expect(await screen.findAllByText('充值数量不能小于 $2')).toHaveLength(2);
    expect(server.find('POST', '/api/user/stripe/pay')).toHaveLength(0);

    fireEvent.change(amount, { target: { value: '20' } });
    fireEvent.click(button(document, '使用 Stripe 支付'));
    await waitFor(() => expect(redirect).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_test_1'));
    expect(server.find('POST', '/api/user/stripe/pay')[0]!.body).toEqual({ amount: 20 });
  });

  it('shows the server’s refusal of a Stripe order', async () => {
    mockApi({
      'GET /api/status': () => ok(stripeOn),
      'GET /api/user/self': self,
      'POST /api/user/stripe/amount': () => ({ success: true, message: 'success', data: '7.50' }),
      'POST /api/user/stripe/pay': () => ({ success: false, message: '无法创建 Stripe 支付会话，请稍后再试', data: '无法创建 Stripe 支付会话，请稍后再试' }),
    });
    renderApp('/topup', PLAIN_USER);
    await screen.findByText('7.50 USD');
    fireEvent.click(button(document, '使用 Stripe 支付'));
    expect(await screen.findByText('无法创建 Stripe 支付会话，请稍后再试')).toBeTruthy();
  });

  it('shows what the server recorded when Stripe sends the browser back, paid or cancelled', async () => {
    mockApi({
      'GET /api/status': () => ok(stripeOn),
      'GET /api/user/self': self,
      'GET /api/topup/self': () => ok(aTopUpOrder(1, { quota: 10_000_000, money: 30, payment_method: 'stripe', status: 'success' })),
    });
    const { unmount } = renderApp('/topup?stripe=success&trade_no=USR2NOabcdef1700000002', PLAIN_USER);
    expect(await screen.findByText('充值成功！已到账 $20.00')).toBeTruthy();
    expect(screen.getByText('订单号 USR2NOabcdef1700000002，支付金额 30.00 USD')).toBeTruthy();
    unmount();

    mockApi({
      'GET /api/status': () => ok(stripeOn),
      'GET /api/user/self': self,
      'GET /api/topup/self': () => ok(aTopUpOrder(1, { money: 7.5, payment_method: 'stripe', status: 'pending' })),
    });
    renderApp('/topup?stripe=cancel&trade_no=USR2NOabcdef1700000003', PLAIN_USER);
    expect(await screen.findByText('已取消支付，未扣款')).toBeTruthy();
  });

  it('lists Stripe orders with their currency, refunds and disputes with their note', async () => {
    const server = mockApi({
      'GET /api/status': () => ok(stripeOn),
      'GET /api/user/self': self,
      'GET /api/topup/': () =>
        ok({
          items: [aTopUpOrder(7, { payment_method: 'stripe', money: 9, status: 'refunded', note: 'refunded 9.00 USD of 9.00 USD (ch_test_1)', complete_time: 1700000100 })],
          total: 1,
          page: 1,
          page_size: 10,
        }),
    });
    renderApp('/topup?tab=orders', ROOT_USER);
    expect(await screen.findByText('refunded 9.00 USD of 9.00 USD (ch_test_1)')).toBeTruthy();
    expect(screen.getByText('9.00 USD')).toBeTruthy();
    expect(screen.getByText('Stripe')).toBeTruthy();
    expect(screen.getByText('已退款')).toBeTruthy();
    expect(server.find('GET', '/api/topup/').length).toBeGreaterThan(0);
  });
});
