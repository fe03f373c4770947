import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { button, popover } from '../../test/dom';
import { aToken } from '../../test/fixtures';
import { done, mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';
import type { Token } from './api';

const makeToken = (id: number, overrides: Partial<Token> = {}): Token => aToken(id, overrides);

const sideData = {
  'GET /api/user/models': () => ok(['gpt-4o', 'gpt-4o-mini']),
  'GET /api/user/self/groups': () => ok({ default: { ratio: 1, desc: '默认分组' }, vip: { ratio: 2, desc: 'VIP' } }),
};

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('token list', () => {
  it('uses list-style paging: size param, 0-based p, a next page only while full', async () => {
    const server = mockApi({
      ...sideData,
      'GET /api/token/': (call) =>
        ok(call.query.get('p') === '0' ? Array.from({ length: 10 }, (_, i) => makeToken(i + 1)) : [makeToken(11)]),
    });
    renderApp('/token', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(10));
    expect(server.find('GET', '/api/token/')[0].query.toString()).toBe('p=0&size=10');
    fireEvent.click(screen.getByTitle('2'));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(server.find('GET', '/api/token/').at(-1)!.query.toString()).toBe('p=1&size=10');
    expect(screen.queryByTitle('3')).toBeNull();
  });

  it('shows the five status tags', async () => {
    mockApi({
      ...sideData,
      'GET /api/token/': () =>
        ok([
          makeToken(1),
          makeToken(2, { model_limits_enabled: true }),
          makeToken(3, { status: 2 }),
          makeToken(4, { status: 3 }),
          makeToken(5, { status: 4 }),
        ]),
    });
    renderApp('/token', PLAIN_USER);
    for (const label of ['已启用', '已启用：限制模型', '已禁用', '已过期', '已耗尽']) {
      expect(await screen.findByText(label, { selector: '.ant-tag' })).toBeTruthy();
    }
  });

  it('toggles status with status_only and deletes with a trailing slash', async () => {
    const server = mockApi({
      ...sideData,
      'GET /api/token/': () => ok([makeToken(7)]),
      'PUT /api/token/': (call) => ok({ ...makeToken(7), status: (call.body as { status: number }).status }),
      'DELETE /api/token/:id': () => done,
    });
    renderApp('/token', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.click(button(document, '禁用'));
    await waitFor(() => expect(server.find('PUT', '/api/token/')).toHaveLength(1));
    const [put] = server.find('PUT', '/api/token/');
    expect(put.query.get('status_only')).toBe('true');
    expect(put.body).toEqual({ id: 7, status: 2 });

    fireEvent.click(button(document, '删除'));
    const confirm = await waitFor(popover);
    fireEvent.click(button(confirm, '删除'));
    await waitFor(() => expect(server.find('DELETE', '/api/token/7/')).toHaveLength(1));
  });

  it('copies keys with the sk- prefix and refuses an empty selection', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    mockApi({ ...sideData, 'GET /api/token/': () => ok([makeToken(1), makeToken(2)]) });
    renderApp('/token', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(2));

    fireEvent.click(button(document, '复制所选令牌'));
    expect(await screen.findByText('请至少选择一个令牌！')).toBeTruthy();

    fireEvent.click(button(rows()[0], '复制'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(`sk-${makeToken(1).key}`));

    fireEvent.click(rows()[1].querySelector('input[type=checkbox]')!);
    fireEvent.click(button(document, '复制所选令牌'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(`token-2    sk-${makeToken(2).key}`));
  });

  it('searches by name and key, stripping a pasted sk- prefix', async () => {
    const server = mockApi({
      ...sideData,
      'GET /api/token/': () => ok([makeToken(1)]),
      'GET /api/token/search': () => ok([makeToken(9, { name: 'found' })]),
    });
    renderApp('/token', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.change(screen.getByLabelText('搜索令牌名称'), { target: { value: 'fo' } });
    fireEvent.change(screen.getByLabelText('搜索令牌的 key'), { target: { value: 'sk-abc' } });
    fireEvent.click(button(document, '查询'));
    expect(await screen.findByText('found')).toBeTruthy();
    expect(server.find('GET', '/api/token/search')[0].query.toString()).toBe('keyword=fo&token=abc');
  });
});

describe('token drawer', () => {
  async function openCreate() {
    const server = mockApi({ ...sideData, 'GET /api/token/': () => ok([]), 'POST /api/token/': (call) => ok(aToken(1, { name: call.body?.name })) });
    renderApp('/token', PLAIN_USER);
    fireEvent.click(await waitFor(() => button(document, '添加令牌')));
    await screen.findByLabelText('名称');
    return server;
  }

  it('creates N tokens, extra ones named name-XXXXXX', async () => {
    const server = await openCreate();
    fireEvent.change(screen.getByLabelText('名称'), { target: { value: 'batch' } });
    fireEvent.click(button(document, '20'));
    fireEvent.click(button(document, '提交'));
    await waitFor(() => expect(server.find('POST', '/api/token/')).toHaveLength(20), { timeout: 5000 });
    const posts = server.find('POST', '/api/token/').map((call) => call.body as Record<string, unknown>);
    expect(posts[0]).toEqual({
      name: 'batch',
      remain_quota: 500000,
      expired_time: -1,
      unlimited_quota: false,
      model_limits_enabled: false,
      model_limits: '',
      allow_ips: '',
      group: '',
      rpm_limit: 0,
      tpm_limit: 0,
      period_limits: {},
    });
    for (const post of posts.slice(1)) expect(post.name).toMatch(/^batch-[A-Za-z0-9]{6}$/);
    expect(await screen.findByText('令牌创建成功，请在列表页面点击复制获取令牌！')).toBeTruthy();
  });

  it("refuses a malformed expiry with '过期时间格式错误！'", async () => {
    const server = await openCreate();
    fireEvent.change(screen.getByLabelText('名称'), { target: { value: 'x' } });
    fireEvent.change(screen.getByLabelText('过期时间'), { target: { value: '2030-99-99' } });
    fireEvent.click(button(document, '提交'));
    expect(await screen.findByText('过期时间格式错误！')).toBeTruthy();
    expect(server.find('POST', '/api/token/')).toHaveLength(0);
  });

  it('requires a name', async () => {
    await openCreate();
    fireEvent.click(button(document, '提交'));
    expect(await screen.findByText('请输入名称！')).toBeTruthy();
  });

  it('disables quota and count when unlimited, and shows models only with limits on', async () => {
    await openCreate();
    const quota = screen.getByLabelText('额度') as HTMLInputElement;
    const count = screen.getByLabelText('新建数量') as HTMLInputElement;
    expect(quota.disabled).toBe(false);
    fireEvent.click(screen.getByLabelText('设为无限额度'));
    await waitFor(() => expect(quota.disabled).toBe(true));
    expect(count.disabled).toBe(true);

    expect(screen.queryByLabelText('允许的模型')).toBeNull();
    fireEvent.click(screen.getByLabelText('启用模型限制'));
    expect(await screen.findByLabelText('允许的模型')).toBeTruthy();
  });

  it('loads a token for editing and PUTs the whole record', async () => {
    const token = makeToken(3, { name: 'edit-me', model_limits_enabled: true, model_limits: 'gpt-4o', group: 'vip' });
    const server = mockApi({
      ...sideData,
      'GET /api/token/': () => ok([token]),
      'GET /api/token/:id': () => ok(token),
      'PUT /api/token/': () => ok(token),
    });
    renderApp('/token', PLAIN_USER);
    fireEvent.click(await waitFor(() => button(document, '编辑')));
    const name = (await screen.findByLabelText('名称')) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe('edit-me'));
    expect(screen.queryByLabelText('新建数量')).toBeNull();
    fireEvent.change(name, { target: { value: 'renamed' } });
    fireEvent.click(button(document, '提交'));
    await waitFor(() => expect(server.find('PUT', '/api/token/')).toHaveLength(1));
    expect(server.find('PUT', '/api/token/')[0].body).toMatchObject({
      id: 3,
      key: token.key,
      name: 'renamed',
      model_limits_enabled: true,
      model_limits: 'gpt-4o',
      group: 'vip',
      expired_time: -1,
    });
  });
  it('opens "add" empty after editing an unlimited token (no values carried over)', async () => {
    const token = makeToken(4, { name: 'old-unlimited', unlimited_quota: true });
    mockApi({ ...sideData, 'GET /api/token/': () => ok([token]), 'GET /api/token/:id': () => ok(token) });
    renderApp('/token', PLAIN_USER);
    fireEvent.click(await waitFor(() => button(document, '编辑')));
    const name = (await screen.findByLabelText('名称')) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe('old-unlimited'));
    fireEvent.click(button(document, '取消'));
    await waitFor(() => expect(screen.queryByLabelText('名称')).toBeNull());
    fireEvent.click(button(document, '添加令牌'));
    const fresh = (await screen.findByLabelText('名称')) as HTMLInputElement;
    expect(fresh.value).toBe('');
    expect((screen.getByLabelText('设为无限额度') as HTMLInputElement).getAttribute('aria-checked')).toBe('false');
    expect((screen.getByLabelText('额度') as HTMLInputElement).disabled).toBe(false);
  });
});
