import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { browser } from '../../lib/api';
import { button } from '../../test/dom';
import { aToken, DEFAULT_STATUS } from '../../test/fixtures';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

const ADDRESS = 'https://gate.example.com';
/** The user's tokens: a disabled one first, so the page must pick the first *enabled* key. */
const TOKENS = [aToken(1, { name: 'old', key: 'disabledkey0000', status: 2 }), aToken(2, { name: 'mine', key: 'abcd1234efgh5678', status: 1 })];

function withStatus(status: Partial<typeof DEFAULT_STATUS>) {
  return mockApi({
    'GET /api/status': () => ok({ ...DEFAULT_STATUS, server_address: ADDRESS, ...status }),
    'GET /api/token/': () => ok(TOKENS),
  });
}

describe('/chat2link opens the configured chat client with the user’s key', () => {
  it('sends the ChatLink client the first enabled key and the server address, after consent', async () => {
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => {});
    const api = withStatus({ chat_link: 'https://next.example/' });
    renderApp('/chat2link', PLAIN_USER);
    const consent = await screen.findByTestId('chat-consent');
    expect(consent.textContent).toContain('next.example');
    expect(consent.textContent).toContain('mine');
    expect(api.find('GET', '/api/token/')[0]!.query.toString()).toBe('p=0&size=100');
    expect(redirect).not.toHaveBeenCalled();

    fireEvent.click(button(consent, '发送令牌并打开 next.example'));
    await waitFor(() => expect(redirect).toHaveBeenCalledOnce());
    const settings = JSON.stringify({ key: 'sk-abcd1234efgh5678', url: ADDRESS });
    expect(redirect).toHaveBeenCalledWith(`https://next.example/#/?settings=${encodeURIComponent(settings)}`);
  });

  it('opens the Chats entry chosen by ?id=, filling {key} and {address}, without asking again for a known site', async () => {
    localStorage.setItem('chat-consent', JSON.stringify(['two.example']));
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => {});
    withStatus({ chats: [{ One: 'https://one.example/?k={key}' }, { Two: 'https://two.example/#/?key={key}&url={address}' }] });
    renderApp('/chat2link?id=1', PLAIN_USER);
    await waitFor(() => expect(redirect).toHaveBeenCalledOnce());
    expect(redirect).toHaveBeenCalledWith(`https://two.example/#/?key=sk-abcd1234efgh5678&url=${encodeURIComponent(ADDRESS)}`);
  });

  it("says '聊天链接配置错误，请联系管理员' for a link that is not a URL, and opens nothing", async () => {
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => {});
    withStatus({ chats: [{ Broken: 'not a url {key}' }] });
    renderApp('/chat2link', PLAIN_USER);
    expect(await screen.findByText('聊天链接配置错误，请联系管理员')).toBeTruthy();
    expect(redirect).not.toHaveBeenCalled();
  });

  it('asks for consent in English too', async () => {
    await i18n.changeLanguage('en');
    vi.spyOn(browser, 'redirect').mockImplementation(() => {});
    withStatus({ chat_link: 'https://next.example' });
    renderApp('/chat2link', PLAIN_USER);
    const consent = await screen.findByTestId('chat-consent');
    expect(button(consent, i18n.t('chat:consent.confirm', { site: 'next.example' }))).toBeTruthy();
    expect(consent.textContent).not.toMatch(/[\u4e00-\u9fff]/);
  });
});
