import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { aToken, DEFAULT_STATUS } from '../../test/fixtures';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

const CHATS = { ...DEFAULT_STATUS, chats: [{ NextChat: 'https://chat.example/#/?key={key}&url={address}' }] };

// Spec §2: /chat/{id?} is public; the visitor is asked to sign in, the signed-in user gets the client.
describe('chat routes are public', () => {
  it.each(['/chat/0', '/chat2link'])('tell a visitor at %s to sign in, without calling for a key or bouncing to /login', async (path) => {
    const api = mockApi({ 'GET /api/status': () => ok(CHATS), 'GET /api/token/': () => ok([aToken(1)]) });
    const { router } = renderApp(path);
    expect(await screen.findByText('登录后即可聊天')).toBeTruthy();
    const link = screen.getByText('去登录').closest('a');
    expect(link?.getAttribute('href')).toBe('/login');
    expect(router.state.location.pathname).toBe(path);
    expect(router.state.location.search).toBe('');
    expect(api.find('GET', '/api/token/')).toHaveLength(0);
    expect(document.querySelector('.ant-message-notice')).toBeNull();
  });

  it('show a signed-in user the consent step for the configured client', async () => {
    const api = mockApi({ 'GET /api/status': () => ok(CHATS), 'GET /api/token/': () => ok([aToken(1, { name: 'mine' })]) });
    const { router } = renderApp('/chat/0', PLAIN_USER);
    expect(await screen.findByTestId('chat-consent')).toBeTruthy();
    expect(screen.getByTestId('chat-consent').textContent).toContain('chat.example');
    expect(screen.queryByText('登录后即可聊天')).toBeNull();
    expect(router.state.location.pathname).toBe('/chat/0');
    await waitFor(() => expect(api.find('GET', '/api/token/')).toHaveLength(1));
  });

  it('take a signed-in user at /chat2link to the consent step too', async () => {
    mockApi({ 'GET /api/status': () => ok(CHATS), 'GET /api/token/': () => ok([aToken(1, { name: 'mine' })]) });
    renderApp('/chat2link', PLAIN_USER);
    expect(await screen.findByTestId('chat-consent')).toBeTruthy();
  });

  it("say '请联系管理员配置聊天链接' (spec §8) when no chat link is configured", async () => {
    const api = mockApi({ 'GET /api/token/': () => ok([aToken(1)]) });
    renderApp('/chat/0', PLAIN_USER);
    expect(await screen.findByText('请联系管理员配置聊天链接')).toBeTruthy();
    expect(api.find('GET', '/api/token/')).toHaveLength(0);
  });
});
