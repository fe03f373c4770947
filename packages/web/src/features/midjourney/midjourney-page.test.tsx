import { screen, waitFor } from '@testing-library/react';
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';
import type { MjTaskView } from './api';

const now = Date.now();
const task: MjTaskView = {
  id: 7, user_id: 3, submit_time: now - 90_000, start_time: now - 80_000, finish_time: now, channel_id: 5, action: 'IMAGINE', mj_id: '1712345678901234',
  code: 1, status: 'SUCCESS', progress: '100%', image_url: 'http://127.0.0.1:1/a.png', prompt: 'a red fox', prompt_en: 'a red fox', description: '', fail_reason: '', quota: 50000,
};
const failed: MjTaskView = { ...task, id: 8, mj_id: '1712345678909999', status: 'FAILURE', finish_time: now - 80_000, image_url: '', fail_reason: 'banned prompt' };
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('drawing tasks', () => {
  it('admins list every task with channel and user, the last 30 days to +1 h in milliseconds', async () => {
    const server = mockApi({ 'GET /api/mj/': () => ok([task, failed]) });
    renderApp('/midjourney', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(2), { timeout: 15_000 });
    const query = server.find('GET', '/api/mj/')[0].query;
    expect([...query.keys()].sort()).toEqual(['channel_id', 'end_timestamp', 'mj_id', 'p', 'start_timestamp']);
    expect(query.get('p')).toBe('0');
    expect(Math.abs(Number(query.get('start_timestamp')) - dayjs().subtract(30, 'day').valueOf())).toBeLessThan(60_000);
    expect(Number(query.get('end_timestamp')) - Date.now()).toBeGreaterThan(3_500_000);
    expect(screen.getByRole('columnheader', { name: '渠道' })).toBeTruthy();
    // 90 s is over a minute: red; 10 s green.
    expect(rows()[0].querySelector('[data-testid=task-duration]')!.className).toMatch(/red/);
    expect(rows()[1].querySelector('[data-testid=task-duration]')!.className).toMatch(/green/);
    expect(screen.getAllByText('绘图').length).toBeGreaterThan(0);
    expect(screen.getByText('成功')).toBeTruthy();
    expect(screen.getByText('banned prompt')).toBeTruthy();
    expect(rows()[0].querySelector('img')?.getAttribute('src')).toBe(task.image_url);
  });

  it('users read their own tasks, without the channel column or filter', async () => {
    const server = mockApi({ 'GET /api/mj/self/': () => ok([task]) });
    renderApp('/midjourney', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(1), { timeout: 15_000 });
    expect(server.find('GET', '/api/mj/self/')[0].query.has('channel_id')).toBe(false);
    expect(screen.queryByRole('columnheader', { name: '渠道' })).toBeNull();
    expect(screen.queryByLabelText('渠道编号')).toBeNull();
  });
});
