import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { button, popover } from '../../test/dom';
import { aRedemption } from '../../test/fixtures';
import { done, mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';
import type { Redemption } from './api';

const paged = (items: Redemption[], page = 1, pageSize = 10, total = items.length) => ok({ items, total, page, page_size: pageSize });
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('redemption codes', () => {
  it('lists codes paged with their status and who redeemed them, and searches by keyword', async () => {
    const server = mockApi({
      'GET /api/redemption/': () =>
        paged([aRedemption(3), aRedemption(2, { status: 2 }), aRedemption(1, { status: 3, used_user_id: 5, used_username: 'alice', redeemed_time: 1700003600 })], 1, 10, 3),
      'GET /api/redemption/search': () => paged([aRedemption(9, { name: 'spring' })]),
    });
    renderApp('/redemption', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(server.find('GET', '/api/redemption/')[0].query.toString()).toBe('p=1&page_size=10');
    expect(within(rows()[0]).getByText('未使用')).toBeTruthy();
    expect(within(rows()[0]).getByText('$0.20')).toBeTruthy();
    expect(within(rows()[0]).getByText('尚未兑换')).toBeTruthy();
    expect(within(rows()[1]).getByText('已禁用')).toBeTruthy();
    expect(within(rows()[2]).getByText('已使用')).toBeTruthy();
    expect(within(rows()[2]).getByText('alice')).toBeTruthy();
    // A used code can neither be enabled nor edited (spec §4).
    expect(button(rows()[2], '启用').disabled).toBe(true);
    expect(button(rows()[2], '编辑').disabled).toBe(true);
    expect(button(rows()[1], '编辑').disabled).toBe(true);
    expect(button(rows()[0], '编辑').disabled).toBe(false);

    fireEvent.change(screen.getByLabelText('搜索兑换码的 ID 或名称'), { target: { value: 'spr' } });
    fireEvent.click(button(document, '查询'));
    expect(await screen.findByText('spring')).toBeTruthy();
    expect(server.find('GET', '/api/redemption/search')[0].query.toString()).toBe('keyword=spr&p=1&page_size=10');
  });

  it('creates a batch named by its quota and offers the keys to copy or download as CSV', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:codes';
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    const keys = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
    const server = mockApi({ 'GET /api/redemption/': () => paged([]), 'POST /api/redemption/': () => ok(keys) });
    renderApp('/redemption', ROOT_USER);
    expect(await screen.findByText('还没有兑换码，点击“添加兑换码”生成一批')).toBeTruthy();
    fireEvent.click(button(document, '添加兑换码'));
    const name = await screen.findByLabelText('名称');
    expect(name.getAttribute('placeholder')).toBe('$0.20');
    fireEvent.change(screen.getByLabelText('生成数量'), { target: { value: '3' } });
    fireEvent.click(button(document, '提交'));
    await waitFor(() => expect(server.find('POST', '/api/redemption/')).toHaveLength(1));
    expect(server.find('POST', '/api/redemption/')[0].body).toEqual({ name: '', quota: 100000, count: 3 });

    const dialog = await screen.findByRole('dialog', { name: '已生成 3 个兑换码' });
    expect((within(dialog).getByLabelText('兑换码') as HTMLTextAreaElement).value).toBe(keys.join('\n'));
    fireEvent.click(button(dialog, '复制全部'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(keys.join('\n')));
    fireEvent.click(button(dialog, '下载 CSV'));
    expect(click).toHaveBeenCalledTimes(1);
    const bytes = new Uint8Array(await blobs[0]!.arrayBuffer());
    // A UTF-8 byte-order mark first, so spreadsheets read names in Chinese correctly.
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes)).toBe(`name,key\r\n"$0.20",${keys[0]}\r\n"$0.20",${keys[1]}\r\n"$0.20",${keys[2]}`);
    click.mockRestore();
  });

  it('edits an unused code, toggles status with status_only, deletes, and deletes the invalid ones', async () => {
    const server = mockApi({
      'GET /api/redemption/': () => paged([aRedemption(4, { name: 'old' })]),
      'GET /api/redemption/:id': () => ok(aRedemption(4, { name: 'old' })),
      'PUT /api/redemption/': (call) => ok(aRedemption(4, { ...(call.body as Partial<Redemption>) })),
      'DELETE /api/redemption/:id': () => done,
      'DELETE /api/redemption/invalid': () => ok(7),
    });
    renderApp('/redemption', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));

    fireEvent.click(button(rows()[0], '编辑'));
    const name = await screen.findByDisplayValue('old');
    fireEvent.change(name, { target: { value: 'renamed' } });
    fireEvent.click(button(document, '提交'));
    await waitFor(() => expect(server.find('PUT', '/api/redemption/')).toHaveLength(1));
    expect(server.find('PUT', '/api/redemption/')[0].body).toEqual({ id: 4, name: 'renamed', quota: 100000 });
    expect(await screen.findByText('兑换码更新成功！')).toBeTruthy();

    fireEvent.click(button(rows()[0], '禁用'));
    await waitFor(() => expect(server.find('PUT', '/api/redemption/')).toHaveLength(2));
    const toggle = server.find('PUT', '/api/redemption/')[1];
    expect(toggle.query.get('status_only')).toBe('true');
    expect(toggle.body).toEqual({ id: 4, status: 2 });

    fireEvent.click(button(rows()[0], '删除'));
    fireEvent.click(button(await waitFor(popover), '删除'));
    await waitFor(() => expect(server.find('DELETE', '/api/redemption/4/')).toHaveLength(1));

    fireEvent.click(button(document, '清除失效兑换码'));
    fireEvent.click(button(await waitFor(popover), '删除'));
    expect(await screen.findByText('已删除 7 个失效兑换码')).toBeTruthy();
  });

  it('refuses to copy an empty selection, copies the selected keys one per line', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    mockApi({ 'GET /api/redemption/': () => paged([aRedemption(1), aRedemption(2)]) });
    renderApp('/redemption', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.click(button(document, '复制所选兑换码'));
    expect(await screen.findByText('请至少选择一个兑换码！')).toBeTruthy();
    fireEvent.click(rows()[0].querySelector('input[type=checkbox]')!);
    fireEvent.click(rows()[1].querySelector('input[type=checkbox]')!);
    fireEvent.click(button(document, '复制所选兑换码'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(`${aRedemption(1).key}\n${aRedemption(2).key}`));
  });

  it('is for admins only', async () => {
    mockApi({});
    renderApp('/redemption', PLAIN_USER);
    expect(await screen.findByText('此页面仅管理员可用。')).toBeTruthy();
  });
});
