import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { button } from '../../test/dom';
import { aSelfUser, aTopUpOrder, DEFAULT_STATUS } from '../../test/fixtures';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';

const self = () => ok(aSelfUser(2, { quota: 2_500_000, used_quota: 500_000, request_count: 42 }));
const online = { ...DEFAULT_STATUS, enable_online_topup: true, min_topup: 2 };

afterEach(() => vi.restoreAllMocks());

describe('wallet', () => {
  it('shows the balance in dollars and says when no top-up link is set, or opens it', async () => {
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    mockApi({ 'GET /api/user/self': self });
    const { unmount } = renderApp('/topup', PLAIN_USER);
    expect(await screen.findByText('$5.00')).toBeTruthy();
    expect(screen.getByText('管理员未开启在线充值！')).toBeTruthy();
    fireEvent.click(button(document, '获取兑换码'));
    expect(await screen.findByText('超级管理员未设置充值链接！')).toBeTruthy();
    expect(open).not.toHaveBeenCalled();
    unmount();

    mockApi({ 'GET /api/status': () => ok({ ...DEFAULT_STATUS, top_up_link: 'https://shop.example.com/codes' }), 'GET /api/user/self': self });
    renderApp('/topup', PLAIN_USER);
    await screen.findByText('$5.00');
    await waitFor(() => {
      fireEvent.click(button(document, '获取兑换码'));
      expect(open).toHaveBeenCalledWith('https://shop.example.com/codes', '_blank', 'noopener,noreferrer');
    });
  });

  it('redeems a code, refuses an empty one, and refreshes the balance', async () => {
    let quota = 0;
    const server = mockApi({
      'GET /api/user/self': () => ok(aSelfUser(2, { quota })),
      'POST /api/user/topup': (call) => {
        if (call.body?.key !== 'good-code') return { success: false, message: '无效的兑换码' };
        quota = 100_000;
        return ok(100_000);
      },
    });
    renderApp('/topup', PLAIN_USER);
    const balance = await screen.findByTestId('wallet-balance');
    await waitFor(() => expect(balance.textContent).toContain('$0.00'));
    fireEvent.click(button(document, '兑换'));
    expect(await screen.findByText('请输入兑换码！')).toBeTruthy();
    expect(server.find('POST', '/api/user/topup')).toHaveLength(0);

    const input = screen.getByLabelText('请输入兑换码');
    fireEvent.change(input, { target: { value: 'bad-code' } });
    fireEvent.click(button(document, '兑换'));
    expect(await screen.findByText('无效的兑换码')).toBeTruthy();

    fireEvent.change(input, { target: { value: '  good-code ' } });
    fireEvent.click(button(document, '兑换'));
    expect(await screen.findByText('兑换成功！已增加额度 $0.20')).toBeTruthy();
    expect(server.find('POST', '/api/user/topup').at(-1)!.body).toEqual({ key: 'good-code' });
    await waitFor(() => expect(screen.getByTestId('wallet-balance').textContent).toContain('$0.20'));
    // Again right after a success: the button is ready for the next code.
    fireEvent.change(input, { target: { value: 'bad-code' } });
    await waitFor(() => expect(button(document, '兑换').querySelector('.anticon-loading')).toBeNull());
    fireEvent.click(button(document, '兑换'));
    await waitFor(() => expect(server.find('POST', '/api/user/topup')).toHaveLength(3));
  });

  it('quotes the payable live, enforces the minimum, and posts the signed order to the gateway', async () => {
    const submit = vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => {});
    const fields = { pid: '1001', type: 'alipay', out_trade_no: 'USR2NOabcdef1700000000', money: '73.00', sign: 'f'.repeat(32), sign_type: 'MD5' };
    const server = mockApi({
      'GET /api/status': () => ok(online),
      'GET /api/user/self': self,
      'POST /api/user/amount': (call) => ({ success: true, message: 'success', data: (Number(call.body?.amount) * 7.3).toFixed(2) }),
      'POST /api/user/pay': () => ({ success: true, message: 'success', data: fields, url: 'http://pay.example.com/submit.php' }),
    });
    renderApp('/topup', PLAIN_USER);
    const payable = await screen.findByTestId('topup-payable');
    // The minimum ($2) is the starting amount; $1 is below it and not offered.
    await waitFor(() => expect(payable.textContent).toContain('¥14.60'));
    expect(server.find('POST', '/api/user/amount')[0]!.body).toEqual({ amount: 2, top_up_code: '' });
    expect(() => button(document, '$1')).toThrow();
    fireEvent.click(button(document, '$10'));
    await waitFor(() => expect(payable.textContent).toContain('¥73.00'));

    const amount = screen.getByLabelText('充值数量');
    fireEvent.change(amount, { target: { value: '1' } });
    await waitFor(() => expect(payable.textContent).toBe('充值数量不能小于 $2'));
    fireEvent.click(button(document, '支付宝'));
    expect(await screen.findAllByText('充值数量不能小于 $2')).toHaveLength(2);
    expect(server.find('POST', '/api/user/pay')).toHaveLength(0);

    fireEvent.change(amount, { target: { value: '10' } });
    fireEvent.click(button(document, '支付宝'));
    await waitFor(() => expect(submit).toHaveBeenCalledTimes(1));
    expect(server.find('POST', '/api/user/pay')[0]!.body).toEqual({ amount: 10, top_up_code: '', payment_method: 'zfb' });
    const form = submit.mock.contexts[0] as HTMLFormElement;
    expect(form.action).toBe('http://pay.example.com/submit.php');
    expect(form.method).toBe('post');
    expect(Object.fromEntries(new FormData(form))).toEqual(fields);
  });

  it('shows the server’s refusal of an order', async () => {
    mockApi({
      'GET /api/status': () => ok(online),
      'GET /api/user/self': self,
      'POST /api/user/amount': () => ({ success: true, message: 'success', data: '14.60' }),
      'POST /api/user/pay': () => ({ success: false, message: '请先填写服务器地址', data: '请先填写服务器地址' }),
    });
    renderApp('/topup', PLAIN_USER);
    await screen.findByText('¥14.60');
    fireEvent.click(button(document, '微信支付'));
    expect(await screen.findByText('请先填写服务器地址')).toBeTruthy();
  });

  it('shows the recorded result when the gateway sends the browser back', async () => {
    let calls = 0;
    const server = mockApi({
      'GET /api/user/self': self,
      'GET /api/topup/self': () => ok(aTopUpOrder(1, { quota: 2_500_000, money: 36.5, status: ++calls > 1 ? 'success' : 'pending' })),
    });
    renderApp('/topup?out_trade_no=USR2NOabcdef1700000001&trade_status=TRADE_SUCCESS&money=36.50', PLAIN_USER);
    expect(await screen.findByText('支付结果确认中，到账后余额会自动刷新')).toBeTruthy();
    expect(server.find('GET', '/api/topup/self')[0]!.query.get('trade_no')).toBe('USR2NOabcdef1700000001');
    expect(await screen.findByText('充值成功！已到账 $5.00', {}, { timeout: 5000 })).toBeTruthy();
    expect(screen.getByText('订单号 USR2NOabcdef1700000001，支付金额 ¥36.50')).toBeTruthy();
  });

  it('lists every order for an admin, by keyword and status', async () => {
    const server = mockApi({
      'GET /api/user/self': self,
      'GET /api/topup/': () => ok({ items: [aTopUpOrder(5, { status: 'success', complete_time: 1700000100 })], total: 1, page: 1, page_size: 10 }),
    });
    renderApp('/topup', ROOT_USER);
    fireEvent.click(await screen.findByText('充值订单'));
    const row = await waitFor(() => {
      const found = document.querySelector<HTMLElement>('.ant-table-tbody tr.ant-table-row');
      expect(found).not.toBeNull();
      return found!;
    });
    expect(within(row).getByText('alice')).toBeTruthy();
    expect(within(row).getByText('$10.00')).toBeTruthy();
    expect(within(row).getByText('¥73.00')).toBeTruthy();
    expect(within(row).getByText('已完成')).toBeTruthy();
    expect(within(row).getByText('支付宝')).toBeTruthy();
    expect(server.find('GET', '/api/topup/')[0]!.query.toString()).toBe('keyword=&status=&p=1&page_size=10');
    fireEvent.change(screen.getByLabelText('订单号或用户名'), { target: { value: 'alice' } });
    fireEvent.click(button(document, '查询'));
    await waitFor(() => expect(server.find('GET', '/api/topup/')).toHaveLength(2));
    expect(server.find('GET', '/api/topup/')[1]!.query.toString()).toBe('keyword=alice&status=&p=1&page_size=10');
  });
});
