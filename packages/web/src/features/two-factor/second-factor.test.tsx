import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, mockApi, ok } from '../../test/mock-api';
import { renderApp } from '../../test/render';

const fill = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const ALICE = { id: 5, username: 'alice', display_name: 'Alice', role: 1, status: 1, group: 'default', default_password: false };

describe('two-factor sign-in step', () => {
  it('asks for the code after the password, keeps the user signed out until it is right, then goes to /token', async () => {
    let wrong = true;
    const server = mockApi({
      'POST /api/user/login': () => ok({ require_2fa: true, flow_token: 'flow-123' }),
      'POST /api/user/login/2fa/methods': () => ok({ totp: true, passkey: false }),
      'POST /api/user/login/2fa': () => (wrong ? fail('验证码或备用码错误，请重试') : ok(ALICE)),
      'GET /api/token/': () => ok([]),
    });
    const { router } = renderApp('/login');
    await screen.findByLabelText('用户名或邮箱');
    fill('用户名或邮箱', 'alice');
    fill('密码', 'password123');
    fireEvent.click(screen.getByRole('button', { name: '登录' }));

    expect(await screen.findByText('密码正确。请输入身份验证器应用中的验证码以完成登录。')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/login/2fa');
    expect(localStorage.getItem('user')).toBeNull();
    fill('验证码', '123456');
    fireEvent.click(screen.getByRole('button', { name: '验证并登录' }));
    expect(await screen.findByText('验证码或备用码错误，请重试')).toBeTruthy();
    expect(localStorage.getItem('user')).toBeNull();

    wrong = false;
    fill('验证码', 'abcde-fghjk');
    fireEvent.click(screen.getByRole('button', { name: '验证并登录' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    expect(server.find('POST', '/api/user/login/2fa').at(-1)?.body).toEqual({ flow_token: 'flow-123', code: 'abcde-fghjk' });
    expect(JSON.parse(localStorage.getItem('user')!)).toMatchObject({ id: 5, username: 'alice' });
  });

  it('offers the passkey alone to an account whose second factor is a passkey, and says when the browser cannot use one', async () => {
    const server = mockApi({
      'POST /api/user/login': () => ok({ require_2fa: true, flow_token: 'flow-pk' }),
      'POST /api/user/login/2fa/methods': () => ok({ totp: false, passkey: true }),
      'POST /api/user/login/2fa/passkey/options': () => ok({ challenge: 'c2lnbi1pbg', rpId: 'localhost', allowCredentials: [{ id: 'a2V5', type: 'public-key' }], userVerification: 'preferred' }),
    });
    renderApp('/login');
    await screen.findByLabelText('用户名或邮箱');
    fill('用户名或邮箱', 'alice');
    fill('密码', 'password123');
    fireEvent.click(screen.getByRole('button', { name: '登录' }));

    expect(await screen.findByText('密码正确。请使用您的通行密钥确认，以完成登录。')).toBeTruthy();
    expect(screen.queryByLabelText('验证码')).toBeNull();
    expect(server.find('POST', '/api/user/login/2fa/methods')[0].body).toEqual({ flow_token: 'flow-pk' });
    // jsdom has no WebAuthn: the options are fetched for this sign-in, then the browser's refusal is said in the user's language.
    fireEvent.click(screen.getByRole('button', { name: /使用通行密钥/ }));
    expect(await screen.findByText('当前浏览器不支持通行密钥。')).toBeTruthy();
    expect(server.find('POST', '/api/user/login/2fa/passkey/options')[0].body).toEqual({ flow_token: 'flow-pk' });
    expect(localStorage.getItem('user')).toBeNull();
  });

  it('offers the code form and a passkey when the account has both', async () => {
    mockApi({
      'POST /api/user/login': () => ok({ require_2fa: true, flow_token: 'flow-both' }),
      'POST /api/user/login/2fa/methods': () => ok({ totp: true, passkey: true }),
    });
    renderApp('/login');
    await screen.findByLabelText('用户名或邮箱');
    fill('用户名或邮箱', 'alice');
    fill('密码', 'password123');
    fireEvent.click(screen.getByRole('button', { name: '登录' }));
    expect(await screen.findByLabelText('验证码')).toBeTruthy();
    expect(await screen.findByRole('button', { name: /使用通行密钥/ })).toBeTruthy();
    expect(screen.getByText('或')).toBeTruthy();
  });

  it('is the login screen again when opened without a pending sign-in (a reload)', async () => {
    mockApi({});
    const { router } = renderApp('/login/2fa');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByLabelText('用户名或邮箱')).toBeTruthy();
  });
});
