import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, mockApi, ok } from '../../test/mock-api';
import { renderApp } from '../../test/render';

const fill = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('login', () => {
  it("shows the 'expired' message and stores the aff code", async () => {
    mockApi({});
    renderApp('/login?expired=true&aff=ABCD');
    expect(await screen.findByText('未登录或登录已过期，请重新登录！')).toBeTruthy();
    expect(localStorage.getItem('aff')).toBe('ABCD');
  });

  it('requires username and password', async () => {
    const server = mockApi({});
    renderApp('/login');
    fireEvent.click(await screen.findByRole('button', { name: '登录' }));
    expect(await screen.findByText('请输入用户名和密码！')).toBeTruthy();
    expect(server.find('POST', '/api/user/login')).toHaveLength(0);
  });

  it('signs in, stores the user and goes to /token', async () => {
    const server = mockApi({
      'POST /api/user/login': () => ok({ id: 5, username: 'alice', display_name: 'Alice', role: 1, status: 1, group: 'default', default_password: false }),
      'GET /api/token/': () => ok([]),
    });
    const { router } = renderApp('/login');
    await screen.findByLabelText('用户名或邮箱');
    fill('用户名或邮箱', 'alice');
    fill('密码', 'password123');
    fireEvent.click(screen.getByRole('button', { name: '登录' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    const [call] = server.find('POST', '/api/user/login');
    expect(call.body).toEqual({ username: 'alice', password: 'password123' });
    expect(call.query.get('turnstile')).toBe('');
    expect(JSON.parse(localStorage.getItem('user')!)).toMatchObject({ id: 5, username: 'alice' });
    // Later requests identify the user.
    await waitFor(() => expect(server.find('GET', '/api/token/').at(-1)?.headers['new-api-user']).toBe('5'));
    expect(screen.queryByText('您正在使用默认密码！')).toBeNull();
  });

  it('warns when root signs in with the default password', async () => {
    mockApi({
      'POST /api/user/login': () => ok({ id: 1, username: 'root', display_name: 'Root User', role: 100, status: 1, group: 'default', default_password: true }),
      'GET /api/token/': () => ok([]),
    });
    renderApp('/login');
    await screen.findByLabelText('用户名或邮箱');
    fill('用户名或邮箱', 'root');
    fill('密码', '123456');
    fireEvent.click(screen.getByRole('button', { name: '登录' }));
    // antd repeats a confirm dialog's title for assistive tech, hence findAll.
    expect(await screen.findAllByText('您正在使用默认密码！')).not.toHaveLength(0);
    expect(screen.getAllByText('请立刻修改默认密码！')).not.toHaveLength(0);
  });

  it("shows the server's refusal", async () => {
    mockApi({ 'POST /api/user/login': () => fail('用户名或密码错误，或用户已被封禁') });
    const { router } = renderApp('/login');
    await screen.findByLabelText('用户名或邮箱');
    fill('用户名或邮箱', 'bob');
    fill('密码', 'wrongpass');
    fireEvent.click(screen.getByRole('button', { name: '登录' }));
    expect(await screen.findByText('用户名或密码错误，或用户已被封禁')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/login');
  });
});
