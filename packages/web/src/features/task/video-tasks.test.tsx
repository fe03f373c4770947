import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button, buttons } from '../../test/dom';
import { mockApi, ok, status } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';
import type { AsyncTaskView } from './api';

const now = Math.floor(Date.now() / 1000);
const done: AsyncTaskView = {
  id: 7, user_id: 2, submit_time: now - 60, start_time: now - 50, finish_time: now - 5, progress: '100%', channel_id: 0, platform: 'video', action: 'textGenerate',
  task_id: 'video_0123456789abcdef0123456789abcdef', status: 'SUCCESS', fail_reason: '', quota: 400000,
  video: { model: 'sora-2', seconds: 8, size: '1280x720', preview_url: '/api/task/video_0123456789abcdef0123456789abcdef/content?exp=9999999999&sig=abc' },
};
const running: AsyncTaskView = { ...done, id: 8, task_id: 'video_running', status: 'IN_PROGRESS', progress: '40%', finish_time: 0, video: { ...done.video!, preview_url: '' } };
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('video tasks on /task', () => {
  it('shows what was asked and previews a finished video in a <video> on the signed same-origin link', async () => {
    mockApi({ 'GET /api/task/self': () => ok([done, running]) });
    renderApp('/task', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(2), { timeout: 15_000 });
    // Text queries: role queries over antd's table take seconds each in jsdom (test/dom.ts).
    expect(Array.from(document.querySelectorAll('.ant-table-thead th')).map((th) => th.textContent)).toContain('视频');
    expect(within(rows()[0]!).getByText('文生视频')).toBeTruthy();
    expect(within(rows()[0]!).getByText('8 秒 · 1280x720')).toBeTruthy();
    // Unfinished: no preview yet, and the list says it follows the task.
    expect(buttons(rows()[1]!).filter((b) => b.textContent?.includes('预览'))).toEqual([]);
    expect(screen.getByText('有未完成的任务，列表每 3 秒自动刷新')).toBeTruthy();
    fireEvent.click(button(rows()[0]!, '预览'));
    const video = await screen.findByTestId('video-preview');
    expect(video.tagName).toBe('VIDEO');
    expect(video.getAttribute('src')).toBe(done.video!.preview_url);
  });

  it('submits a video from the screen and shows the server’s refusal in its words', async () => {
    let sent: unknown;
    let answer: 'ok' | 'refuse' = 'refuse';
    const server = mockApi({
      'GET /api/task/self': () => ok([]),
      'POST /pg/video/generations': (call) => {
        sent = call.body;
        if (answer === 'refuse') return status(400, { code: 'video_unpriced', message: '模型 x 的视频价格未配置（分辨率 720p），请联系管理员设置', data: null });
        return { id: 'video_new', task_id: 'video_new', object: 'video', model: 'sora-2', status: 'queued', progress: 0, created_at: now, seconds: '4', size: '720x1280' };
      },
    });
    renderApp('/task', PLAIN_USER);
    fireEvent.click(await screen.findByRole('button', { name: /生成视频/ }, { timeout: 15_000 }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('提示词'), { target: { value: 'a lighthouse at dusk' } });
    fireEvent.change(within(dialog).getByLabelText('尺寸'), { target: { value: '720p' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /提\s*交/ }));
    expect(await screen.findByText(/提交失败：模型 x 的视频价格未配置/)).toBeTruthy();
    expect(sent).toEqual({ model: 'sora-2', prompt: 'a lighthouse at dusk', size: '720p' });
    answer = 'ok';
    const listed = server.find('GET', '/api/task/self').length;
    fireEvent.click(within(dialog).getByRole('button', { name: /提\s*交/ }));
    expect(await screen.findByText('已提交视频任务 video_new，完成后可在列表中预览')).toBeTruthy();
    await waitFor(() => expect(server.find('GET', '/api/task/self').length).toBeGreaterThan(listed));
  });
});
