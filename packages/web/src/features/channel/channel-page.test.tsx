import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button, popover } from '../../test/dom';
import { aChannel } from '../../test/fixtures';
import { done, fail, mockApi, ok } from '../../test/mock-api';
import { renderApp, ROOT_USER } from '../../test/render';
import type { Channel } from './api';

function makeChannel(id: number, over: Partial<Channel> = {}): Channel {
  return aChannel(id, { name: `ch-${id}`, ...over });
}

const side = {
  'GET /api/group/': () => ok(['default', 'vip']),
  'GET /api/models': () => ok({ '1': ['gpt-4o'], '43': ['deepseek-chat', 'deepseek-reasoner'] }),
  'GET /api/channel/models': () =>
    ok(['gpt-4o', 'gpt-4o-mini'].map((id) => ({ id, object: 'model' as const, created: 1626777600, owned_by: 'openai' }))),
};
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('channel list', () => {
  it('pages list-style with 0-based p, remembers the id sort, and patches rows with partial PUTs', async () => {
    const server = mockApi({
      ...side,
      'GET /api/channel/': (call) =>
        ok(call.query.get('p') === '0' ? Array.from({ length: 10 }, (_, i) => makeChannel(i + 1, { weight: 5 })) : [makeChannel(11)]),
      'PUT /api/channel/': (call) => ok({ ...makeChannel(1), ...(call.body as object) }),
    });
    renderApp('/channel', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(10));
    expect(server.find('GET', '/api/channel/')[0].query.toString()).toBe('p=0&page_size=10&id_sort=false&tag_mode=false');
    fireEvent.click(screen.getByTitle('2'));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(server.find('GET', '/api/channel/').at(-1)!.query.get('p')).toBe('1');

    fireEvent.click(screen.getByLabelText('使用 ID 排序'));
    await waitFor(() => expect(server.find('GET', '/api/channel/').at(-1)!.query.get('id_sort')).toBe('true'));
    expect(localStorage.getItem('id-sort')).toBe('true');
    await waitFor(() => expect(rows()).toHaveLength(10));

    fireEvent.click(button(rows()[0], '禁用'));
    await waitFor(() => expect(server.find('PUT', '/api/channel/')).toHaveLength(1));
    expect(server.find('PUT', '/api/channel/')[0].body).toEqual({ id: 1, status: 2 });

    const weight = rows()[0].querySelectorAll<HTMLInputElement>('input[aria-label="权重"]')[0];
    fireEvent.change(weight, { target: { value: '-4' } });
    fireEvent.blur(weight);
    await waitFor(() => expect(server.find('PUT', '/api/channel/')).toHaveLength(2));
    expect(server.find('PUT', '/api/channel/')[1].body).toEqual({ id: 1, weight: 0 });
  });

  it('refuses a batch delete without a selection, deletes the chosen ids and tags a selection', async () => {
    const server = mockApi({
      ...side,
      'GET /api/channel/': () => ok([makeChannel(1), makeChannel(2)]),
      'POST /api/channel/batch': () => ok(1),
      'POST /api/channel/batch/tag': () => ok(1),
    });
    renderApp('/channel', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.click(screen.getByLabelText('开启批量操作'));
    fireEvent.click(await waitFor(() => button(document, '删除所选通道')));
    expect(await screen.findByText('请先选择要删除的通道！')).toBeTruthy();
    fireEvent.click(rows()[1].querySelector('input[type=checkbox]')!);
    fireEvent.click(button(document, '删除所选通道'));
    fireEvent.click(button(await waitFor(popover), '删除'));
    await waitFor(() => expect(server.find('POST', '/api/channel/batch')).toHaveLength(1));
    expect(server.find('POST', '/api/channel/batch')[0].body).toEqual({ ids: [2] });
    expect(await screen.findByText('已删除 1 个通道！')).toBeTruthy();

    // The delete cleared the selection; tag a fresh one (the mock list still has both rows).
    fireEvent.click(rows()[0].querySelector('input[type=checkbox]')!);
    fireEvent.click(button(document, '为所选设置标签'));
    fireEvent.change(await screen.findByLabelText('标签名称'), { target: { value: ' team ' } });
    fireEvent.click(button(document, '保存'));
    await waitFor(() => expect(server.find('POST', '/api/channel/batch/tag')).toHaveLength(1));
    expect(server.find('POST', '/api/channel/batch/tag')[0].body).toEqual({ ids: [1], tag: 'team' });
  });

  it('groups rows by tag in tag mode with tag-level enable', async () => {
    const server = mockApi({
      ...side,
      'GET /api/channel/': (call) =>
        ok(call.query.get('tag_mode') === 'true' ? [makeChannel(1, { tag: 'team' }), makeChannel(2, { tag: 'team', status: 2 })] : []),
      'POST /api/channel/tag/enabled': () => done,
    });
    renderApp('/channel', ROOT_USER);
    await screen.findByText('暂无渠道，点击“添加渠道”接入第一个上游');
    fireEvent.click(screen.getByLabelText('开启标签聚合'));
    expect(await screen.findByText('启用 1/2')).toBeTruthy();
    fireEvent.click(button(document, '启用全部'));
    await waitFor(() => expect(server.find('POST', '/api/channel/tag/enabled')[0]?.body).toEqual({ tag: 'team' }));
  });
});

describe('channel drawer', () => {
  it('validates, rejects duplicate custom models and creates', async () => {
    const server = mockApi({ ...side, 'GET /api/channel/': () => ok([]), 'POST /api/channel/': () => done });
    renderApp('/channel/add', ROOT_USER);
    const name = await screen.findByLabelText('名称');
    fireEvent.change(name, { target: { value: 'deep' } });
    fireEvent.click(button(document, '提交'));
    expect(await screen.findByText('请填写渠道名称和渠道密钥！')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('密钥'), { target: { value: 'sk-1' } });
    fireEvent.click(button(document, '提交'));
    expect(await screen.findByText('请至少选择一个模型！')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('自定义模型'), { target: { value: 'm1, m2' } });
    fireEvent.click(button(document, '填入'));
    fireEvent.change(screen.getByLabelText('自定义模型'), { target: { value: 'm2' } });
    fireEvent.click(button(document, '填入'));
    expect(await screen.findByText('某些模型已存在！')).toBeTruthy();

    fireEvent.click(button(document, '提交'));
    await waitFor(() => expect(server.find('POST', '/api/channel/')).toHaveLength(1));
    expect(server.find('POST', '/api/channel/')[0].body).toMatchObject({
      type: 1, name: 'deep', key: 'sk-1', models: 'm1,m2', groups: ['default'], group: 'default', auto_ban: 1, priority: 0, weight: 0,
    });
  });

  it('shows the server refusing an admin who repoints a channel without its key, and stays open', async () => {
    const refused = '修改渠道的请求去向（类型、Base URL、代理、地区、账户或 API 版本）时必须重新填写密钥';
    const server = mockApi({
      ...side,
      'GET /api/channel/': () => ok([]),
      'GET /api/channel/:id': () => ok(makeChannel(7, { base_url: 'https://api.example.com' })),
      'PUT /api/channel/': () => fail(refused),
    });
    renderApp('/channel/edit/7', { ...ROOT_USER, id: 3, username: 'admin', role: 10 });
    await waitFor(() => expect((screen.getByLabelText('接口地址') as HTMLInputElement).value).toBe('https://api.example.com'));
    expect(screen.getByText(/修改 Base URL 或渠道类型时需重新填写密钥/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('接口地址'), { target: { value: 'https://elsewhere.example' } });
    fireEvent.click(button(document, '提交'));
    expect(await screen.findByText(refused)).toBeTruthy();
    expect(server.find('PUT', '/api/channel/')[0].body).toMatchObject({ id: 7, base_url: 'https://elsewhere.example', key: '' });
    expect(screen.getByLabelText('名称')).toBeTruthy();
  });

  it('a DeepSeek channel has the reasoning-into-content switch, which edits thinking_to_content in the extra settings', async () => {
    const server = mockApi({
      ...side,
      'GET /api/channel/': () => ok([]),
      'GET /api/channel/:id': () => ok(makeChannel(6, { type: 43, setting: '{"force_format":true}' })),
      'PUT /api/channel/': (call) => ok({ ...makeChannel(6), ...(call.body as object) }),
    });
    renderApp('/channel/edit/6', ROOT_USER);
    await waitFor(() => expect((screen.getByLabelText('名称') as HTMLInputElement).value).toBe('ch-6'));
    const toggle = screen.getByRole('switch', { name: '思考内容并入正文' });
    expect(toggle.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('true'));
    fireEvent.click(button(document, '提交'));
    await waitFor(() => expect(server.find('PUT', '/api/channel/')).toHaveLength(1));
    expect(JSON.parse(String((server.find('PUT', '/api/channel/')[0].body as { setting: string }).setting))).toEqual({ force_format: true, thinking_to_content: true });
  });

  it('fetching models is only for types that list them (OpenAI, Gemini)', async () => {
    mockApi({ ...side, 'GET /api/channel/': () => ok([]), 'GET /api/channel/:id': () => ok(makeChannel(5, { type: 43 })) });
    renderApp('/channel/edit/5', ROOT_USER);
    await waitFor(() => expect((screen.getByLabelText('名称') as HTMLInputElement).value).toBe('ch-5'));
    fireEvent.click(button(document, '获取模型列表'));
    expect(await screen.findByText('仅支持 OpenAI 接口格式和 Gemini 渠道')).toBeTruthy();
  });
});
