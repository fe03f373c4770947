import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STATUS, fail, mockApi, ok, status } from '../test/mock-api';
import { noticeHash } from '../features/home/components/notice-modal';
import { PLAIN_USER, renderApp, ROOT_USER } from '../test/render';

const emptyTokens = { 'GET /api/token/': () => ok([]) };

describe('routes and guards', () => {
  it('sends visitors without a stored user to /login', async () => {
    mockApi({});
    const { router } = renderApp('/token');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByLabelText('用户名或邮箱')).toBeTruthy();
  });

  it('refuses admin screens to ordinary users', async () => {
    mockApi({});
    renderApp('/user', PLAIN_USER);
    expect(await screen.findByText('无权访问')).toBeTruthy();
  });

  it('shows a not-found page for unknown paths', async () => {
    mockApi({});
    renderApp('/definitely/missing');
    expect(await screen.findByText('页面不存在')).toBeTruthy();
  });
});

describe('side nav', () => {
  it('lists only built screens, with admin entries for admins', async () => {
    mockApi({ ...emptyTokens, 'GET /api/status': () => ok({ ...DEFAULT_STATUS, enable_task: true, enable_drawing: true }) });
    renderApp('/token', ROOT_USER);
    const nav = await screen.findByTestId('side-nav');
    await waitFor(() => expect(within(nav).getAllByRole('link').map((link) => link.textContent)).toEqual(['操练场', '渠道', '令牌', '兑换码', '套餐管理', '钱包', '用户管理', '日志', '审计日志', '绘图', '异步任务', '设置']));
  });

  it('hides admin entries from ordinary users', async () => {
    mockApi(emptyTokens);
    renderApp('/token', PLAIN_USER);
    const nav = await screen.findByTestId('side-nav');
    await waitFor(() => expect(within(nav).getAllByRole('link').map((link) => link.textContent)).toEqual(['操练场', '令牌', '钱包', '日志', '设置']));
  });

  it('is not shown to visitors', async () => {
    mockApi({});
    renderApp('/about');
    await screen.findByText(/管理员尚未设置关于内容/);
    expect(screen.queryByTestId('side-nav')).toBeNull();
  });
});

describe('status', () => {
  it('keeps /api/status in localStorage like the reference', async () => {
    mockApi({ 'GET /api/status': () => ok({ ...DEFAULT_STATUS, system_name: 'Gate X', display_in_currency: false }) });
    renderApp('/about');
    await waitFor(() => expect(JSON.parse(localStorage.getItem('status') ?? '{}').system_name).toBe('Gate X'));
    expect(localStorage.getItem('system_name')).toBe('Gate X');
    expect(localStorage.getItem('display_in_currency')).toBe('false');
    expect(localStorage.getItem('chats')).toBe('[]');
    expect(await screen.findByText('Gate X')).toBeTruthy();
  });

  it("toasts 'Unable to connect to server' when the server cannot be reached", async () => {
    mockApi({ 'GET /api/status': () => status(502) });
    renderApp('/about');
    expect(await screen.findByText('无法连接到服务器')).toBeTruthy();
  });

  it("toasts 'Failed to load status' when the server refuses", async () => {
    mockApi({ 'GET /api/status': () => fail('boom') });
    renderApp('/about');
    expect(await screen.findByText('加载状态失败')).toBeTruthy();
  });
});

describe('footer', () => {
  it('renders sanitised footer_html', async () => {
    mockApi({
      'GET /api/status': () =>
        ok({ ...DEFAULT_STATUS, footer_html: '<b id="f">Custom footer</b><script>window.hacked=1</script><img src=x onerror="window.hacked=1">' }),
    });
    const { container } = renderApp('/about');
    expect(await screen.findByText('Custom footer')).toBeTruthy();
    expect(container.querySelector('.mg-footer script')).toBeNull();
    expect(container.querySelector('.mg-footer img')?.getAttribute('onerror')).toBeNull();
  });

  it('renders a Markdown footer with the shared renderer', async () => {
    mockApi({ 'GET /api/status': () => ok({ ...DEFAULT_STATUS, footer_html: '**Gate** by [us](https://example.com)' }) });
    const { container } = renderApp('/about');
    await waitFor(() => expect(container.querySelector('.mg-footer strong')?.textContent).toBe('Gate'));
    expect(container.querySelector('.mg-footer a')?.getAttribute('href')).toBe('https://example.com');
  });

  it('falls back to the credit line with the version', async () => {
    mockApi({});
    renderApp('/about');
    expect(await screen.findByText(/v0\.1\.0-test/)).toBeTruthy();
  });
});

describe('home', () => {
  it('shows an https home page URL in an iframe and the notice in a modal once', async () => {
    mockApi({
      'GET /api/home_page_content': () => ok('https://example.com/welcome'),
      'GET /api/notice': () => ok('**Maintenance** tonight'),
    });
    const { container } = renderApp('/');
    expect(await screen.findByText('Maintenance')).toBeTruthy();
    await waitFor(() => expect(container.querySelector('iframe')?.getAttribute('src')).toBe('https://example.com/welcome'));
    // The footer button (the corner × shares its accessible name).
    screen.getAllByRole('button', { name: '关闭' }).at(-1)!.click();
    await waitFor(() => expect(localStorage.getItem('notice_seen')).toBe(noticeHash('**Maintenance** tonight')));
  });

  it('shows a dismissed notice again only once it changes', async () => {
    localStorage.setItem('notice_seen', noticeHash('old news'));
    const seen = mockApi({ 'GET /api/notice': () => ok('old news') });
    const first = renderApp('/');
    expect(await screen.findByText('系统状况')).toBeTruthy();
    await waitFor(() => expect(seen.find('GET', '/api/notice')).toHaveLength(1));
    // The answer has arrived and been compared: nothing opened.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.queryByText('old news')).toBeNull();
    first.unmount();
    mockApi({ 'GET /api/notice': () => ok('new news') });
    renderApp('/');
    expect(await screen.findByText('new news')).toBeTruthy();
  });

  it('advertises only the sign-in methods and features that are on', async () => {
    mockApi({ 'GET /api/status': () => ok({ ...DEFAULT_STATUS, github_oauth: true, linuxdo_oauth: false, enable_drawing: false, enable_task: true }) });
    renderApp('/');
    expect(await screen.findByText('GitHub 登录')).toBeTruthy();
    expect(screen.getByText('异步任务（音乐）')).toBeTruthy();
    expect(screen.queryByText('LinuxDO 登录')).toBeNull();
    expect(screen.queryByText('Midjourney 绘图')).toBeNull();
  });

  it('renders Markdown home content sanitised', async () => {
    mockApi({ 'GET /api/home_page_content': () => ok('# Hello <img src=x onerror=alert(1)>') });
    const { container } = renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Hello' })).toBeTruthy();
    expect(container.querySelector('.mg-markdown img')?.getAttribute('onerror')).toBeNull();
  });
});
