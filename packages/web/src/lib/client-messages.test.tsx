import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { button } from '../test/dom';
import { aChannel, aSelfUser } from '../test/fixtures';
import { fail, mockApi, ok, status } from '../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../test/render';

/** The spec's client messages (§8): 'failed to get model list' and 'refresh failed', toasted once. */
function toasts(): string[] {
  return Array.from(document.querySelectorAll('.ant-message-notice')).map((notice) => notice.textContent ?? '');
}

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe("'failed to get model list'", () => {
  it('is what the token form says when the user’s models cannot be loaded', async () => {
    mockApi({
      'GET /api/token/': () => ok([]),
      'GET /api/user/models': () => fail('数据库错误'),
      'GET /api/user/self/groups': () => ok({ default: { ratio: 1, desc: '默认分组' } }),
    });
    renderApp('/token', PLAIN_USER);
    fireEvent.click(await waitFor(() => button(document, '添加令牌')));
    fireEvent.click(await screen.findByLabelText('启用模型限制'));
    await waitFor(() => expect(toasts()).toEqual(['获取模型列表失败']));
    expect(screen.queryByText('数据库错误')).toBeNull();
  });

  it('is what the playground says, in English too', async () => {
    await i18n.changeLanguage('en');
    mockApi({
      'GET /api/user/models': () => status(500),
      'GET /api/user/self/groups': () => ok({ default: { ratio: 1, desc: 'Default' } }),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)),
    });
    renderApp('/playground', PLAIN_USER);
    await waitFor(() => expect(toasts()).toEqual(['Failed to get model list']));
  });
});

describe("'refresh failed'", () => {
  it('is what the channel list’s refresh button says when the reload fails, and nothing else', async () => {
    let broken = false;
    const server = mockApi({
      'GET /api/channel/': () => (broken ? fail('数据库错误') : ok([aChannel(1, { name: 'ch-1' })])),
      'GET /api/group/': () => ok(['default']),
    });
    renderApp('/channel', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));

    broken = true;
    fireEvent.click(button(document, '刷新'));
    await waitFor(() => expect(server.find('GET', '/api/channel/')).toHaveLength(2));
    await waitFor(() => expect(toasts()).toEqual(['刷新失败']));
    expect(screen.queryByText('数据库错误')).toBeNull();
  });

  it('is what a channel’s balance update says when the request fails (English)', async () => {
    await i18n.changeLanguage('en');
    const server = mockApi({
      'GET /api/channel/': () => ok([aChannel(1, { name: 'ch-1', balance: 3 })]),
      'GET /api/group/': () => ok(['default']),
      'GET /api/channel/update_balance/:id': () => status(502, 'bad gateway'),
    });
    renderApp('/channel', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.click(rows()[0]!.querySelector<HTMLButtonElement>('.mg-balance-button')!);
    await waitFor(() => expect(server.find('GET', '/api/channel/update_balance/1/')).toHaveLength(1));
    await waitFor(() => expect(toasts()).toEqual(['Refresh failed']));
  });
});
