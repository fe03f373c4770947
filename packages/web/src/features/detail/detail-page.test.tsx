import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { aSelfUser, DEFAULT_STATUS } from '../../test/fixtures';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';

const hour = Math.floor(Date.now() / 1000 / 3600) * 3600;
const ROWS = [
  { model_name: 'gpt-4o-mini', created_at: hour - 3600, token_used: 120, count: 3, quota: 45 },
  { model_name: 'gpt-4o-mini', created_at: hour, token_used: 80, count: 2, quota: 30 },
  { model_name: 'gpt-4', created_at: hour, token_used: 50, count: 1, quota: 1500 },
];

/** The screen's chunk (echarts included) takes a while to transform on a cold test run. */
const SLOW = { timeout: 30_000 };

const total = (key: string) => document.querySelector<HTMLElement>(`[data-total="${key}"] .ant-statistic-content`)!.textContent;

describe('data dashboard', () => {
  it('admin: reads /api/data/ with the range and granularity, shows totals and one chart per metric', async () => {
    const server = mockApi({
      'GET /api/status': () => ok({ ...DEFAULT_STATUS, enable_data_export: true, data_export_default_time: 'day' }),
      'GET /api/data/': () => ok(ROWS),
      'GET /api/user/self': () => ok(aSelfUser(ROOT_USER.id, { quota: 1_000_000, used_quota: 250_000, request_count: 6 })),
    });
    renderApp('/detail', ROOT_USER);
    await waitFor(() => expect(server.find('GET', '/api/data/')).toHaveLength(1), SLOW);
    const q = server.find('GET', '/api/data/')[0]!.query;
    expect(q.get('username')).toBe('');
    expect(Number(q.get('end_timestamp')) - Number(q.get('start_timestamp'))).toBeGreaterThan(6 * 86400);
    await waitFor(() => expect(total('count')).toBe('6'), SLOW);
    expect(total('tokens')).toBe('250');
    expect(total('quota')).toBe('$0.0032');
    expect(total('balance')).toBe('$2.00');
    for (const chart of ['quota', 'count', 'tokens', 'share']) {
      const card = document.querySelector<HTMLElement>(`[data-chart="${chart}"]`)!;
      await waitFor(() => expect(card.querySelector('svg')).toBeTruthy());
    }
    // Both models are drawn (legend of the quota chart).
    const quotaChart = document.querySelector<HTMLElement>('[data-chart="quota"]')!;
    await waitFor(() => expect(within(quotaChart).getAllByText('gpt-4o-mini').length).toBeGreaterThan(0));
    // The day granularity from the status: both hours fall into today's single bucket or two days.
    expect(screen.getByText('天').closest('.ant-segmented-item')!.className).toContain('selected');
  }, 90_000);

  it('user: reads /api/data/self, no username filter; an empty range says so', async () => {
    const server = mockApi({
      'GET /api/status': () => ok({ ...DEFAULT_STATUS, enable_data_export: true }),
      'GET /api/data/self': () => ok([]),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id)),
    });
    renderApp('/detail', PLAIN_USER);
    expect(await screen.findByText('该时间段内没有用量数据（数据每隔几分钟汇总一次）', {}, SLOW)).toBeTruthy();
    expect(server.find('GET', '/api/data/self')[0]!.query.get('default_time')).toBe('hour');
    expect(screen.queryByLabelText('用户名')).toBeNull();
  }, 90_000);
});
