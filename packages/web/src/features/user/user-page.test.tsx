import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button, buttons, popover } from '../../test/dom';
import { aUser } from '../../test/fixtures';
import { done, mockApi, ok, status } from '../../test/mock-api';
import { renderApp, ROOT_USER } from '../../test/render';
import type { UserListItem } from './api';

function makeUser(id: number, overrides: Partial<UserListItem> = {}): UserListItem {
  return { ...aUser(id, { quota: 1_000_000, used_quota: 250_000, request_count: 12345 }), two_factor: { totp: false, passkeys: 0 }, ...overrides };
}

const paged = (items: UserListItem[], page = 1, pageSize = 10, total = items.length) =>
  ok({ items, total, page, page_size: pageSize });

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('user management', () => {
  it('lists users with quota in dollars and survives a missing /api/group/', async () => {
    const server = mockApi({
      'GET /api/user/': () => paged([makeUser(2)]),
      'GET /api/group/': () => status(404, { success: false, message: 'not found' }),
    });
    renderApp('/user', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    const row = rows()[0];
    expect(within(row).getByText('余额 $2.00')).toBeTruthy();
    expect(within(row).getByText('已用 $0.50')).toBeTruthy();
    expect(within(row).getByText('12.3k 次')).toBeTruthy();
    expect(server.find('GET', '/api/user/')[0].query.toString()).toBe('p=1&page_size=10');
    // The failed group lookup is not toasted.
    expect(screen.queryByText(/not found/)).toBeNull();
  });

  it('searches by keyword and group, and remembers the page size', async () => {
    const server = mockApi({
      'GET /api/user/': () => paged([makeUser(2)], 1, 10, 30),
      'GET /api/user/search': () => paged([makeUser(3)]),
      'GET /api/group/': () => ok(['default', 'vip']),
    });
    renderApp('/user', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.change(screen.getByLabelText('搜索 ID、用户名、显示名称或邮箱'), { target: { value: 'user3' } });
    fireEvent.click(button(document, '查询'));
    await waitFor(() => expect(server.find('GET', '/api/user/search')).toHaveLength(1));
    expect(server.find('GET', '/api/user/search')[0].query.toString()).toBe('keyword=user3&group=&p=1&page_size=10');
    expect(await screen.findByText('user3')).toBeTruthy();
  });

  it('applies the status and role the manage call returns, and marks deleted rows cancelled', async () => {
    const server = mockApi({
      'GET /api/user/': () => paged([makeUser(2)]),
      'GET /api/group/': () => ok([]),
      'POST /api/user/manage': (call) => {
        const action = call.body?.action;
        if (action === 'disable') return ok({ status: 2, role: 1 });
        if (action === 'promote') return ok({ status: 2, role: 10 });
        return ok({ status: 2, role: 10 });
      },
    });
    renderApp('/user', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    const row = () => rows()[0];

    fireEvent.click(button(row(), '禁用'));
    expect(await within(row()).findByText('已封禁')).toBeTruthy();
    expect(server.find('POST', '/api/user/manage')[0].body).toEqual({ id: 2, action: 'disable' });
    expect(button(row(), '启用')).toBeTruthy();

    fireEvent.click(button(row(), '提升'));
    expect(await within(row()).findByText('管理员')).toBeTruthy();

    fireEvent.click(button(row(), '注销'));
    const confirm = await waitFor(popover);
    fireEvent.click(button(confirm, '注销'));
    expect(await within(row()).findByText('已注销')).toBeTruthy();
    expect(buttons(row())).toHaveLength(0);
  });

  it("shows each user's second factors: authenticator app, passkeys, or none", async () => {
    mockApi({
      'GET /api/user/': () =>
        paged([makeUser(2, { two_factor: { totp: true, passkeys: 2 } }), makeUser(3, { two_factor: { totp: false, passkeys: 1 } }), makeUser(4)]),
      'GET /api/group/': () => ok([]),
    });
    renderApp('/user', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(screen.getByRole('columnheader', { name: '两步验证' })).toBeTruthy();
    expect(within(rows()[0]).getByText('验证器应用')).toBeTruthy();
    expect(within(rows()[0]).getByText('通行密钥 2 个')).toBeTruthy();
    expect(within(rows()[1]).queryByText('验证器应用')).toBeNull();
    expect(within(rows()[1]).getByText('通行密钥 1 个')).toBeTruthy();
    expect(within(rows()[2]).getByText('未启用')).toBeTruthy();
  });

  it('disables enable for status 3 and protects the super admin', async () => {
    mockApi({
      'GET /api/user/': () => paged([makeUser(2, { status: 3 }), makeUser(1, { role: 100, username: 'root' })]),
      'GET /api/group/': () => ok([]),
    });
    renderApp('/user', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(button(rows()[0], '启用')).toHaveProperty('disabled', true);
    for (const name of ['降级', '禁用', '注销']) {
      expect(button(rows()[1], name)).toHaveProperty('disabled', true);
    }
  });

  it('adds a user and edits one with quota + added quota', async () => {
    const full = { ...aUser(2, { quota: 1_000_000, used_quota: 250_000, request_count: 12345 }), email: 'u2@example.com', github_id: '' };
    const server = mockApi({
      'GET /api/user/': () => paged([makeUser(2)]),
      'GET /api/group/': () => ok(['default', 'vip']),
      'POST /api/user/': () => done,
      'GET /api/user/:id': () => ok(full),
      'PUT /api/user/': () => ok(full),
    });
    renderApp('/user', ROOT_USER);
    fireEvent.click(await waitFor(() => button(document, '添加用户')));
    const dialog = await waitFor(() => document.querySelector<HTMLElement>('.ant-modal')!);
    fireEvent.change(within(dialog).getByLabelText('用户名'), { target: { value: 'newbie' } });
    fireEvent.change(within(dialog).getByLabelText('密码'), { target: { value: 'password123' } });
    fireEvent.click(button(dialog, '创建'));
    await waitFor(() => expect(server.find('POST', '/api/user/')).toHaveLength(1));
    expect(server.find('POST', '/api/user/')[0].body).toEqual({ username: 'newbie', display_name: 'newbie', password: 'password123' });

    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.click(button(rows()[0], '编辑'));
    const addQuota = await screen.findByLabelText('添加额度');
    fireEvent.change(addQuota, { target: { value: '-250000' } });
    fireEvent.click(button(document, '保存'));
    await waitFor(() => expect(server.find('PUT', '/api/user/')).toHaveLength(1));
    expect(server.find('PUT', '/api/user/')[0].body).toMatchObject({
      id: 2,
      username: 'user2',
      password: '',
      group: 'default',
      add_quota: -250000,
      email: 'u2@example.com',
    });
    expect(server.find('PUT', '/api/user/')[0].body).not.toHaveProperty('quota');
  });

  it('opens the edit drawer from a /user/edit/:id link and returns to /user when closed', async () => {
    const full = { ...makeUser(7), email: 'u7@example.com', github_id: '' };
    mockApi({
      'GET /api/user/': () => paged([makeUser(7)]),
      'GET /api/group/': () => ok(['default']),
      'GET /api/user/:id': () => ok(full),
    });
    const { router } = renderApp('/user/edit/7', ROOT_USER);
    const inDrawer = () => screen.getAllByLabelText('用户名').find((el) => el.closest('.ant-drawer')) as HTMLInputElement | undefined;
    await waitFor(() => expect(inDrawer()?.value).toBe('user7'));
    fireEvent.click(button(inDrawer()!.closest('.ant-drawer') as HTMLElement, '取消'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/user'));
  });

  it('/user/edit (the reference\'s own-account editor) opens the personal settings', async () => {
    mockApi({});
    const { router } = renderApp('/user/edit', ROOT_USER);
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
  });
});
