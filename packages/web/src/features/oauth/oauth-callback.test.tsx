import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, mockApi, ok, status } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';
import { FAILURE_REDIRECT_SECONDS } from '.';

const SIGNED_IN = { id: 9, username: 'github_3', display_name: 'Octo', role: 1, status: 1, group: 'default' };

afterEach(() => {
  vi.useRealTimers();
});

describe('the OAuth callback screen', () => {
  it('hands code and state to the server once, signs the new user in and goes to the token list', async () => {
    const server = mockApi({ 'GET /api/oauth/github': () => ok(SIGNED_IN), 'GET /api/token/': () => ok([]) });
    const { router } = renderApp('/oauth/github?code=c0de&state=st4te');
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    const calls = server.find('GET', '/api/oauth/github');
    expect(calls).toHaveLength(1);
    expect(Object.fromEntries(calls[0]!.query)).toEqual({ code: 'c0de', state: 'st4te' });
    expect(JSON.parse(localStorage.getItem('user')!)).toMatchObject({ id: 9, username: 'github_3' });
    expect(await screen.findByText('登录成功！')).toBeTruthy();
  });

  it('after a bind goes back to personal settings', async () => {
    mockApi({ 'GET /api/oauth/linuxdo': () => ({ success: true, message: 'bind' }) });
    const { router } = renderApp('/oauth/linuxdo?code=c&state=s', PLAIN_USER);
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
    expect(await screen.findByText('绑定成功')).toBeTruthy();
    // Still the same user.
    expect(JSON.parse(localStorage.getItem('user')!)).toMatchObject({ id: PLAIN_USER.id });
  });

  it("shows the server's refusal, then returns to settings on its own", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    mockApi({ 'GET /api/oauth/github': () => fail('该账户已绑定到其他用户') });
    const { router } = renderApp('/oauth/github?code=c&state=s', PLAIN_USER);
    expect((await screen.findByTestId('oauth-error')).textContent).toBe('该账户已绑定到其他用户');
    expect(screen.getByText('授权未完成')).toBeTruthy();
    expect(screen.getByText(`${FAILURE_REDIRECT_SECONDS} 秒后自动返回`)).toBeTruthy();
    expect(router.state.location.pathname).toBe('/oauth/github');
    await act(() => vi.advanceTimersByTimeAsync(FAILURE_REDIRECT_SECONDS * 1000 + 100));
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
  });

  it('a signed-out visitor whose state expired goes back to the login page', async () => {
    mockApi({ 'GET /api/oauth/oidc': () => status(403, { success: false, message: '授权状态为空或不一致，请重新发起登录' }) });
    const { router } = renderApp('/oauth/oidc?code=c&state=old');
    expect((await screen.findByTestId('oauth-error')).textContent).toContain('授权状态为空或不一致，请重新发起登录');
    fireEvent.click(screen.getByRole('button', { name: '返回登录页' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('passes on what the provider refused with', async () => {
    const server = mockApi({ 'GET /api/oauth/linuxdo': () => fail('身份提供方未授权本次登录') });
    renderApp('/oauth/linuxdo?error=access_denied&error_description=denied&state=s');
    expect((await screen.findByTestId('oauth-error')).textContent).toBe('身份提供方未授权本次登录');
    expect(Object.fromEntries(server.find('GET', '/api/oauth/linuxdo')[0]!.query)).toEqual({ code: '', state: 's', error: 'access_denied', error_description: 'denied' });
  });
});
