import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button, popover } from '../../test/dom';
import { aPlan, aSelfUser, aSubscription } from '../../test/fixtures';
import { done, mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('plans (admin)', () => {
  it('lists plans with price, allowances and what happens beyond them, and creates one with only the windows that cap something', async () => {
    const server = mockApi({
      'GET /api/plan/': () => ok([aPlan(1, { name: 'Team', fall_through: false, models: 'gpt-4o' })]),
      'GET /api/option/': () => ok([{ key: 'TimeZone', value: 'Asia/Shanghai' }]),
      'POST /api/plan/': (call) => ok(aPlan(2, { name: String(call.body?.name) })),
      'GET /api/user/models': () => ok(['gpt-4o']),
      'GET /api/group/': () => ok(['default']),
    });
    renderApp('/plan', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    const row = rows()[0]!;
    expect(within(row).getByText('Team')).toBeTruthy();
    expect(within(row).getByText('$10.00')).toBeTruthy();
    expect(within(row).getByText('每日：$1.00')).toBeTruthy();
    expect(within(row).getByText('5 小时：20 次请求')).toBeTruthy();
    expect(within(row).getByText('模型：gpt-4o')).toBeTruthy();
    expect(within(row).getByText('拒绝请求')).toBeTruthy();
    // The super admin sets the zone calendar windows are counted in.
    await waitFor(() => expect((screen.getByLabelText('每日、每周、每月窗口所用的时区') as HTMLInputElement).value).toBe('Asia/Shanghai'));

    fireEvent.click(button(document, '新建套餐'));
    fireEvent.change(await screen.findByLabelText('名称'), { target: { value: 'Week pass' } });
    fireEvent.change(screen.getByLabelText('每周 请求次数上限'), { target: { value: '70' } });
    fireEvent.click(button(document, '保存'));
    await waitFor(() => expect(server.find('POST', '/api/plan/')).toHaveLength(1));
    expect(server.find('POST', '/api/plan/')[0].body).toMatchObject({
      name: 'Week pass',
      price: 5_000_000,
      duration_days: 30,
      allowances: { day: { quota: 500_000, requests: 0 }, week: { quota: 0, requests: 70 } },
      models: '',
      groups: '',
      fall_through: true,
      status: 1,
    });
  });

  it('is not in the side nav of a common user', async () => {
    mockApi({ 'GET /api/user/self': () => ok(aSelfUser(2)) });
    renderApp('/token', PLAIN_USER);
    const nav = await screen.findByTestId('side-nav');
    await waitFor(() => expect(within(nav).getAllByRole('link').length).toBeGreaterThan(3));
    expect(within(nav).queryByText('套餐管理')).toBeNull();
  });
});

describe('plans in the wallet', () => {
  it('buys a plan on sale after confirming, and shows own plans with their meters and order', async () => {
    const server = mockApi({
      'GET /api/user/self': () => ok(aSelfUser(2, { quota: 10_000_000, windows: [{ scope: 'user', id: 2, name: '', window: 'week', quota_limit: 2_500_000, quota_used: 500_000, requests_limit: 0, requests_used: 0, refill_at: 1800000000 }] })),
      'GET /api/user/plan/available': () => ok([aPlan(7, { name: 'Starter', price: 1_000_000 })]),
      'GET /api/user/plan/': () => ok([aSubscription(3, { name: 'Daily 10' }), aSubscription(4, { name: 'Backup' })]),
      'POST /api/user/plan/buy': () => ok(aSubscription(5)),
      'PUT /api/user/plan/order': () => done,
    });
    renderApp('/topup', PLAIN_USER);
    const offer = await screen.findByTestId('plan-offer');
    expect(within(offer).getByText('$2.00 / 30 天')).toBeTruthy();
    fireEvent.click(button(offer, '余额购买'));
    fireEvent.click(button(popover(), '确定'));
    await waitFor(() => expect(server.find('POST', '/api/user/plan/buy')).toHaveLength(1));
    expect(server.find('POST', '/api/user/plan/buy')[0].body).toEqual({ plan_id: 7 });

    const mine = await screen.findByTestId('my-plans');
    const subs = within(mine).getAllByTestId('subscription');
    expect(subs).toHaveLength(2);
    expect(within(subs[0]!).getByText('Daily 10')).toBeTruthy();
    expect(within(subs[0]!).getByText('请求：已用 4 / 10 次，剩余 6 次')).toBeTruthy();
    expect(within(subs[0]!).getByText('超出后拒绝请求')).toBeTruthy();
    fireEvent.click(button(subs[1]!, '上移'));
    await waitFor(() => expect(server.find('PUT', '/api/user/plan/order')).toHaveLength(1));
    expect(server.find('PUT', '/api/user/plan/order')[0].body).toEqual({ ids: [4, 3] });
    // The user's own weekly limit, as a meter.
    const own = await screen.findByTestId('own-limits');
    expect(within(own).getByText('额度：已用 $1.00 / $5.00，剩余 $4.00')).toBeTruthy();
  });
});
