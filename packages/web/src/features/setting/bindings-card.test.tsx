import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../../lib/api';
import { button } from '../../test/dom';
import { aSelfUser } from '../../test/fixtures';
import { DEFAULT_STATUS, done, mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

const ALL_METHODS = {
  ...DEFAULT_STATUS,
  github_oauth: true,
  linuxdo_oauth: true,
  oidc_enabled: true,
  wechat_login: true,
  telegram_oauth: true,
  telegram_bot_name: 'mg_bot',
};

const row = (key: string) => screen.findByTestId(`binding-${key}`);

afterEach(() => {
  vi.restoreAllMocks();
  delete window.turnstile;
});

describe('personal settings: bindings', () => {
  it('lists each method the site offers with what is bound, and only those', async () => {
    mockApi({
      'GET /api/status': () => ok({ ...DEFAULT_STATUS, github_oauth: true, wechat_login: true }),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, { ...PLAIN_USER, email: 'alice@example.com', github_id: 'octo-alice' })),
      'GET /api/user/aff': () => ok('AFF1'),
    });
    renderApp('/setting', PLAIN_USER);
    const email = await row('email');
    expect(email.textContent).toContain('alice@example.com');
    expect(button(email, '重新绑定')).toBeTruthy();
    const github = await row('github');
    expect(github.textContent).toContain('octo-alice');
    expect(button(github, '重新绑定')).toBeTruthy();
    const wechat = await row('wechat');
    expect(wechat.textContent).toContain('未绑定');
    expect(button(wechat, '绑定')).toBeTruthy();
    for (const off of ['linuxdo', 'oidc', 'telegram']) expect(screen.queryByTestId(`binding-${off}`)).toBeNull();
  });

  it('binds GitHub by sending the browser to the authorize URL the server built', async () => {
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => undefined);
    const server = mockApi({
      'GET /api/status': () => ok(ALL_METHODS),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)),
      'GET /api/user/aff': () => ok('AFF1'),
      'GET /api/oauth/authorize': () => ok('https://github.example/login/oauth/authorize?state=abc'),
    });
    renderApp('/setting', PLAIN_USER);
    fireEvent.click(button(await row('github'), '绑定'));
    await waitFor(() => expect(redirect).toHaveBeenCalledWith('https://github.example/login/oauth/authorize?state=abc'));
    expect(server.find('GET', '/api/oauth/authorize')[0]!.query.get('type')).toBe('github');
  });

  it('binds WeChat with the code the official account replied, then shows it', async () => {
    let wechatId = '';
    const server = mockApi({
      'GET /api/status': () => ok(ALL_METHODS),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, { ...PLAIN_USER, wechat_id: wechatId })),
      'GET /api/user/aff': () => ok('AFF1'),
      'GET /api/oauth/wechat/bind': (call) => {
        wechatId = `wx-${call.query.get('code')}`;
        return done;
      },
    });
    renderApp('/setting', PLAIN_USER);
    fireEvent.click(button(await row('wechat'), '绑定'));
    const dialog = await screen.findByRole('dialog', { name: '微信扫码登录' });
    fireEvent.change(within(dialog).getByLabelText('验证码'), { target: { value: ' 123456 ' } });
    fireEvent.click(button(dialog, '确定'));
    expect(await screen.findByText('微信账户绑定成功')).toBeTruthy();
    expect(server.find('GET', '/api/oauth/wechat/bind')[0]!.query.get('code')).toBe('123456');
    await waitFor(async () => expect((await row('wechat')).textContent).toContain('wx-123456'));
  });

  it("binds Telegram with the widget's signed fields", async () => {
    const server = mockApi({
      'GET /api/status': () => ok(ALL_METHODS),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)),
      'GET /api/user/aff': () => ok('AFF1'),
      'GET /api/oauth/telegram/bind': () => done,
    });
    renderApp('/setting', PLAIN_USER);
    fireEvent.click(button(await row('telegram'), '绑定'));
    await screen.findByTestId('telegram-widget');
    window.mgTelegramAuth!({ id: 42, first_name: 'Tele', auth_date: 1700000000, hash: 'ab'.repeat(32) });
    expect(await screen.findByText('Telegram 账户绑定成功')).toBeTruthy();
    expect(Object.fromEntries(server.find('GET', '/api/oauth/telegram/bind')[0]!.query)).toEqual({ id: '42', first_name: 'Tele', auth_date: '1700000000', hash: 'ab'.repeat(32) });
  });

  it('binds an email with a code, passing the human check first when it is on', async () => {
    window.turnstile = {
      render: (_el, options) => {
        options.callback('turnstile-ok');
        return 'w1';
      },
      remove: () => undefined,
    };
    const server = mockApi({
      'GET /api/status': () => ok({ ...DEFAULT_STATUS, turnstile_check: true, turnstile_site_key: 'site-key' }),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)),
      'GET /api/user/aff': () => ok('AFF1'),
      'GET /api/verification': () => done,
      'GET /api/oauth/email/bind': () => done,
    });
    renderApp('/setting', PLAIN_USER);
    fireEvent.click(button(await row('email'), '绑定'));
    const dialog = await screen.findByRole('dialog', { name: '绑定邮箱' });
    fireEvent.change(within(dialog).getByLabelText('邮箱'), { target: { value: 'alice@example.com' } });
    fireEvent.click(button(dialog, '获取验证码'));
    expect(await screen.findByText('验证码发送成功，请检查邮箱')).toBeTruthy();
    const [sent] = server.find('GET', '/api/verification');
    expect(Object.fromEntries(sent!.query)).toEqual({ email: 'alice@example.com', turnstile: 'turnstile-ok' });

    fireEvent.change(within(dialog).getByPlaceholderText('请输入邮件中的验证码'), { target: { value: '778899' } });
    fireEvent.click(button(dialog, '绑定'));
    expect(await screen.findByText('邮箱账户绑定成功')).toBeTruthy();
    expect(Object.fromEntries(server.find('GET', '/api/oauth/email/bind')[0]!.query)).toEqual({ email: 'alice@example.com', code: '778899' });
  });
});
