import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { OPTION_REGISTRY, isSecretOption } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { button } from '../../test/dom';
import { aSelfUser } from '../../test/fixtures';
import { done, fail, mockApi, ok, type Handler } from '../../test/mock-api';
import { PLAIN_USER, ROOT_USER, renderApp } from '../../test/render';
import { duplicateKey } from './sections/groups-section';

type Stored = Record<string, string>;

/** The server's option list: every non-secret key, with `overrides`. */
function optionList(overrides: Stored = {}) {
  return Object.entries(OPTION_REGISTRY)
    .filter(([key]) => !isSecretOption(key))
    .map(([key, spec]) => ({ key, value: overrides[key] ?? spec.default }));
}

function setup(overrides: Stored = {}, put: Handler<'PUT /api/option/'> = () => done, path = '/setting?tab=operation') {
  const server = mockApi({
    'GET /api/user/self': () => ok(aSelfUser(ROOT_USER.id, ROOT_USER)),
    'GET /api/user/aff': () => ok('ABCD'),
    'GET /api/option/': () => ok(optionList(overrides)),
    'PUT /api/option/': put,
  });
  renderApp(path, ROOT_USER);
  return server;
}

async function section(name: string): Promise<HTMLElement> {
  const title = await screen.findByText(name, { selector: '.ant-card-head-title' });
  const card = title.closest('.ant-card') as HTMLElement;
  await waitFor(() => expect(card.querySelector('.ant-skeleton')).toBeNull());
  return card;
}

const puts = (server: ReturnType<typeof setup>) => server.find('PUT', '/api/option/').map((c) => c.body);

describe('settings: operation, system and other tabs', () => {
  it('saves only the changed key of a section, as a string', async () => {
    const server = setup();
    const card = await section('通用设置');
    fireEvent.change(within(card).getByLabelText('失败重试次数'), { target: { value: '3' } });
    fireEvent.click(button(card, '保存通用设置'));
    await waitFor(() => expect(puts(server)).toEqual([{ key: 'RetryTimes', value: '3' }]));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    // The field explains what it does.
    expect(within(card).getByText(/失败后改用其他渠道重试的次数/)).toBeTruthy();
  });

  it('says so when nothing changed and sends nothing', async () => {
    const server = setup();
    const card = await section('额度设置');
    fireEvent.click(button(card, '保存额度设置'));
    expect(await screen.findByText('你似乎并没有修改什么')).toBeTruthy();
    expect(puts(server)).toEqual([]);
  });

  it('refuses invalid JSON naming the field, and pretty-prints valid JSON', async () => {
    const server = setup();
    const card = await section('分组设置');
    const ratio = within(card).getByLabelText('分组倍率');
    fireEvent.change(ratio, { target: { value: '{"default": 1,' } });
    fireEvent.click(button(card, '保存分组设置'));
    expect(await screen.findByText('分组倍率: 不是合法的 JSON 字符串')).toBeTruthy();
    expect(puts(server)).toEqual([]);

    fireEvent.change(ratio, { target: { value: '{"default":1,"vip":2}' } });
    fireEvent.click(button(card, '保存分组设置'));
    await waitFor(() => expect(puts(server)).toEqual([{ key: 'GroupRatio', value: '{\n  "default": 1,\n  "vip": 2\n}' }]));
  });

  it('refuses a group named twice', async () => {
    const server = setup();
    const card = await section('分组设置');
    fireEvent.change(within(card).getByLabelText('分组倍率'), { target: { value: '{"vip": 1, "vip": 2}' } });
    fireEvent.click(button(card, '保存分组设置'));
    expect(await screen.findByText('分组倍率：分组"vip"重复')).toBeTruthy();
    expect(puts(server)).toEqual([]);
  });

  it('asks for the server address before payment settings', async () => {
    const server = setup({}, () => done, '/setting?tab=system');
    const card = await section('支付设置');
    fireEvent.change(within(card).getByLabelText('支付地址'), { target: { value: 'https://pay.example.com/' } });
    fireEvent.click(button(card, '保存支付设置'));
    expect(await screen.findByText('支付地址: 请先填写服务器地址')).toBeTruthy();
    expect(puts(server)).toEqual([]);
  });

  it('strips trailing slashes and saves a sign-in switch after its settings', async () => {
    const server = setup({ ServerAddress: 'https://gw.example.com' }, () => done, '/setting?tab=system');
    const card = await section('GitHub OAuth 设置');
    fireEvent.change(within(card).getByLabelText('GitHub Client ID'), { target: { value: 'cid' } });
    fireEvent.change(within(card).getByLabelText('GitHub Client Secret'), { target: { value: 'csecret' } });
    fireEvent.change(within(card).getByLabelText('GitHub API 地址'), { target: { value: 'https://ghe.example.com/api/' } });
    fireEvent.click(within(card).getByLabelText('GitHub 登录'));
    fireEvent.click(button(card, '保存GitHub OAuth 设置'));
    await waitFor(() => expect(puts(server)).toHaveLength(4));
    expect(puts(server)).toEqual([
      { key: 'GitHubClientId', value: 'cid' },
      { key: 'GitHubClientSecret', value: 'csecret' },
      { key: 'GitHubApiEndpoint', value: 'https://ghe.example.com/api' },
      { key: 'GitHubOAuthEnabled', value: 'true' },
    ]);
  });

  it('refuses to turn on a sign-in method without its configuration', async () => {
    const server = setup({}, () => done, '/setting?tab=system');
    const card = await section('OIDC 设置');
    fireEvent.click(within(card).getByLabelText('OIDC 登录'));
    fireEvent.click(button(card, '保存OIDC 设置'));
    expect(await screen.findByText(/OIDC 登录: 无法启用 OIDC 登录/)).toBeTruthy();
    expect(puts(server)).toEqual([]);
  });

  it("shows the server's refusal naming the field", async () => {
    setup({}, () => fail('数据库不可用'), '/setting?tab=other');
    const card = await section('公告');
    fireEvent.change(within(card).getByLabelText('公告'), { target: { value: '**hello**' } });
    fireEvent.click(button(card, '保存公告'));
    expect(await screen.findByText('公告: 数据库不可用')).toBeTruthy();
    expect(screen.queryByText('保存成功')).toBeNull();
  });

  it('refuses the root tabs to a plain user with a message', async () => {
    mockApi({ 'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)), 'GET /api/user/aff': () => ok('ABCD') });
    renderApp('/setting?tab=system', PLAIN_USER);
    expect(await screen.findByText('只有超级管理员可以查看该设置页，已为你显示个人设置。')).toBeTruthy();
    expect(screen.queryByText('系统设置')).toBeNull();
    expect(await screen.findByText('修改密码', { selector: '.ant-card-head-title' })).toBeTruthy();
  });
});

describe('duplicateKey', () => {
  it('finds a repeated key and ignores string values', () => {
    expect(duplicateKey('{"a": "b:", "b": 1}')).toBeNull();
    expect(duplicateKey('{"a": 1, "b": 2, "a": 3}')).toBe('a');
  });
});
