import { AUDIT_MASK } from '@modelgate/shared';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button } from '../../test/dom';
import { fail, mockApi, ok } from '../../test/mock-api';
import { renderApp, ROOT_USER } from '../../test/render';
import type { AuditEntry } from './api';

const base: AuditEntry = {
  id: 1, created_at: 1700000000, actor_id: 1, actor_name: 'root', actor_role: 100, ip: '10.1.2.3', user_agent: 'Firefox',
  action: 'option.update', target_type: 'option', target_id: 'SystemName', success: true, message: '',
  request: { key: 'SystemName', value: 'Gate' }, changes: [{ field: 'SystemName', before: 'New API', after: 'Gate' }], changes_truncated: 0,
};
const entries: AuditEntry[] = [
  base,
  {
    ...base, id: 2, actor_name: 'ops', actor_id: 7, actor_role: 10, action: 'channel.update', target_type: 'channel', target_id: '5',
    request: { id: 5, name: 'b', key: AUDIT_MASK }, changes: [{ field: 'name', before: 'a', after: 'b' }, { field: 'key', before: AUDIT_MASK, after: AUDIT_MASK }, { field: 'priority', before: 0, after: 3 }],
  },
  {
    ...base, id: 3, action: 'user.update', target_type: 'user', target_id: '9', success: false, message: '无权更新更高权限的用户',
    request: { id: 9, quota: 5 }, changes: [],
  },
];
const page = (items: AuditEntry[]) => ok({ items, total: items.length, page: 1, page_size: 10 });
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('audit log screen', () => {
  it('shows who, where, the translated action, the target and the changes, keys as hidden', async () => {
    const server = mockApi({ 'GET /api/audit/': () => page(entries) });
    renderApp('/audit', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(server.find('GET', '/api/audit/')[0].query.get('p')).toBe('1');
    const [option, channel, refused] = rows();
    expect(option.textContent).toContain('修改设置');
    expect(option.textContent).toContain('10.1.2.3');
    expect(option.textContent).toMatch(/New API.*→.*Gate/);
    expect(channel.textContent).toContain('编辑渠道');
    expect(channel.textContent).toContain('渠道 5');
    expect(channel.textContent).toMatch(/名称.*a.*→.*b/);
    expect(channel.textContent).toContain('等 1 项');
    expect(refused.textContent).toContain('失败');
    expect(document.body.textContent).not.toContain(AUDIT_MASK);

    fireEvent.click(within(channel).getByRole('button'));
    const detail = await screen.findByTestId('audit-detail');
    expect(detail.textContent).toContain('优先级');
    expect(within(detail).getAllByText('已隐藏').length).toBeGreaterThanOrEqual(3);
    expect(detail.textContent).not.toContain(AUDIT_MASK);
  });

  it('sends the filters, and says so when nothing matches', async () => {
    const server = mockApi({ 'GET /api/audit/': () => page([]) });
    renderApp('/audit', ROOT_USER);
    expect(await screen.findByText('没有符合条件的审计记录')).toBeTruthy();
    await waitFor(() => expect(button(document, '查询').className).not.toMatch(/loading/));
    fireEvent.change(screen.getByLabelText('操作人（用户名或 ID）'), { target: { value: ' ops ' } });
    fireEvent.click(button(document, '查询'));
    await waitFor(() => expect(server.find('GET', '/api/audit/')).toHaveLength(2), { timeout: 5000 });
    expect(server.find('GET', '/api/audit/')[1].query.get('actor')).toBe('ops');
  });

  it('shows a failed load with a way to retry', async () => {
    mockApi({ 'GET /api/audit/': () => fail('database down') });
    renderApp('/audit', ROOT_USER);
    expect(await screen.findByText('审计日志加载失败：database down')).toBeTruthy();
    expect(screen.getByRole('button', { name: /重\s*试/ })).toBeTruthy();
  });

  it('is refused to admins', async () => {
    mockApi({ 'GET /api/audit/': () => page(entries) });
    renderApp('/audit', { ...ROOT_USER, id: 3, role: 10 });
    expect(await screen.findByText('此页面仅超级管理员可用。')).toBeTruthy();
    expect(rows()).toHaveLength(0);
  });
});
