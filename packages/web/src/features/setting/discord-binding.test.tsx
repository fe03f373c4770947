import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../../lib/api';
import { button } from '../../test/dom';
import { aSelfUser } from '../../test/fixtures';
import { DEFAULT_STATUS, done, mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

const discordOn = { ...DEFAULT_STATUS, discord_oauth: true, discord_client_id: 'discord-app' };

afterEach(() => vi.restoreAllMocks());

describe('personal settings: the Discord binding', () => {
  it('binds Discord through the authorize URL the server built', async () => {
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => undefined);
    const server = mockApi({
      'GET /api/status': () => ok(discordOn),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)),
      'GET /api/user/aff': () => ok('AFF1'),
      'GET /api/oauth/authorize': () => ok('https://discord.example/oauth2/authorize?state=abc'),
    });
    renderApp('/setting', PLAIN_USER);
    const row = await screen.findByTestId('binding-discord');
    expect(row.textContent).toContain('未绑定');
    // Nothing bound, nothing to remove.
    expect(() => button(row, '解绑')).toThrow();
    fireEvent.click(button(row, '绑定'));
    await waitFor(() => expect(redirect).toHaveBeenCalledWith('https://discord.example/oauth2/authorize?state=abc'));
    expect(server.find('GET', '/api/oauth/authorize')[0]!.query.get('type')).toBe('discord');
  });

  it('removes a bound Discord account after a confirmation, and shows the server’s refusal', async () => {
    let bound = '803511102246789001';
    const server = mockApi({
      'GET /api/status': () => ok(discordOn),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, { ...PLAIN_USER, email: 'alice@example.com', discord_id: bound })),
      'GET /api/user/aff': () => ok('AFF1'),
      'DELETE /api/oauth/bind': () => {
        bound = '';
        return done;
      },
    });
    renderApp('/setting', PLAIN_USER);
    const row = await screen.findByTestId('binding-discord');
    expect(row.textContent).toContain('803511102246789001');
    fireEvent.click(button(row, '解绑'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('解除 Discord 绑定？');
    expect(server.find('DELETE', '/api/oauth/bind')).toHaveLength(0);
    fireEvent.click(button(dialog, '解绑'));
    await waitFor(() => expect(server.find('DELETE', '/api/oauth/bind')[0]!.query.get('type')).toBe('discord'));
    await waitFor(async () => expect((await screen.findByTestId('binding-discord')).textContent).toContain('未绑定'));
  });
});
