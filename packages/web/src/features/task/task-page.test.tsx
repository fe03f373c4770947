import { screen, waitFor } from '@testing-library/react';
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';
import type { AsyncTaskView } from './api';

const now = Math.floor(Date.now() / 1000);
const music: AsyncTaskView = {
  id: 1, user_id: 3, submit_time: now - 30, start_time: now - 20, finish_time: now, progress: '100%', channel_id: 9, platform: 'suno', action: 'MUSIC',
  task_id: 'b9e1-task', status: 'SUCCESS', fail_reason: '', quota: 50000,
};
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('async tasks', () => {
  it('admins list tasks from today 00:00 with end_timestamp=NaN, channel and user shown', async () => {
    const server = mockApi({ 'GET /api/task/': () => ok([music, { ...music, id: 2, task_id: 'x2', status: 'FAILURE', fail_reason: 'Unable to generate audio', finish_time: now + 100 }]) });
    renderApp('/task', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(2), { timeout: 15_000 });
    const query = server.find('GET', '/api/task/')[0].query;
    expect(Number(query.get('start_timestamp'))).toBe(dayjs().startOf('day').unix());
    expect(query.get('end_timestamp')).toBe('NaN');
    expect(query.get('channel_id')).toBe('');
    expect(screen.getByRole('columnheader', { name: '渠道' })).toBeTruthy();
    expect(screen.getAllByText('生成音乐')).toHaveLength(2);
    expect(screen.getByText('Unable to generate audio')).toBeTruthy();
    expect(rows()[0].querySelector('[data-testid=task-duration]')!.className).toMatch(/green/);
    expect(rows()[1].querySelector('[data-testid=task-duration]')!.className).toMatch(/red/);
  });

  it('users read /api/task/self without the admin column', async () => {
    const server = mockApi({ 'GET /api/task/self': () => ok([music]) });
    renderApp('/task', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(1), { timeout: 15_000 });
    expect(server.find('GET', '/api/task/self')).toHaveLength(1);
    expect(screen.queryByRole('columnheader', { name: '渠道' })).toBeNull();
  });
});
