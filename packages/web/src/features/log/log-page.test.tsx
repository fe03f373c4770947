import { fireEvent, screen, waitFor } from '@testing-library/react';
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { button } from '../../test/dom';
import { fail, mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp, ROOT_USER } from '../../test/render';
import type { LogEntry } from './api';

const entry: LogEntry = {
  id: 1, created_at: 1700000000, type: 2, content: 'ratio text', username: 'root', user_id: 1, token_name: 'tk',
  model_name: 'gpt-4', quota: 240, prompt_tokens: 6, completion_tokens: 5, use_time: 150, is_stream: true, channel: 3, token_id: 4,
  group: 'default', other: JSON.stringify({ model_ratio: 15, completion_ratio: 2, group_ratio: 1, model_price: -1, frt: 12000, admin_info: { use_channel: ['2', '3'] } }),
};
const page = (items: LogEntry[]) => ok({ items, total: items.length, page: 1, page_size: 10 });
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('usage log', () => {
  it('admins query /api/log/ with every filter, today 00:00 to now + 1 h', async () => {
    const server = mockApi({ 'GET /api/log/': () => page([entry]), 'GET /api/log/stat': () => ok({ quota: 240, rpm: 1, tpm: 11 }) });
    renderApp('/log', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    const query = server.find('GET', '/api/log/')[0].query;
    expect([...query.keys()]).toEqual([
      'p', 'page_size', 'type', 'token_name', 'model_name', 'start_timestamp', 'end_timestamp', 'username', 'channel', 'group',
    ]);
    expect(query.get('p')).toBe('1');
    expect(Number(query.get('start_timestamp'))).toBe(dayjs().startOf('day').unix());
    expect(Number(query.get('end_timestamp')) - dayjs().unix()).toBeGreaterThan(3500);
    expect(server.find('GET', '/api/log/stat')[0].query.has('p')).toBe(false);

    // Colours: 150 s use time is orange, a 12 s first token red; the stream tag shows.
    expect(rows()[0].querySelector('[data-testid=use-time]')!.className).toMatch(/orange/);
    expect(rows()[0].querySelector('[data-testid=frt]')!.className).toMatch(/red/);
    expect(screen.getByText('流')).toBeTruthy();
    expect(screen.getByText('$0.000480')).toBeTruthy();

    fireEvent.click(rows()[0].querySelector('.ant-table-row-expand-icon')!);
    const formula = await screen.findByTestId('log-formula');
    expect(formula.textContent).toContain('（提示 6 + 补全 5 × 补全倍率 2）× 模型倍率 15 × 分组倍率 1 = 240 额度，实际扣费 $0.000480');
    expect(screen.getByText('2 → 3')).toBeTruthy();
  });

  it('explains a cached-prompt charge with the relay’s own formula, not the plain spec one', async () => {
    // gpt-4o: 1000 prompt tokens of which 400 cached at 0.5, 100 completion at 4, ratio 1.25:
    // the relay bills (600 + 400 × 0.5 + 100 × 4) × 1.25 = 1500, where (1000 + 400) × 1.25 would be 1750.
    const cached: LogEntry = {
      ...entry, model_name: 'gpt-4o', quota: 1500, prompt_tokens: 1000, completion_tokens: 100,
      other: JSON.stringify({ model_ratio: 1.25, completion_ratio: 4, group_ratio: 1, model_price: -1, cache_tokens: 400, cache_ratio: 0.5 }),
    };
    mockApi({ 'GET /api/log/': () => page([cached]), 'GET /api/log/stat': () => ok({ quota: 1500, rpm: 1, tpm: 1100 }) });
    renderApp('/log', ROOT_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.click(rows()[0].querySelector('.ant-table-row-expand-icon')!);
    const formula = await screen.findByTestId('log-formula');
    expect(formula.textContent).toContain('（提示 600 + 补全 100 × 补全倍率 4 + 缓存 400 × 缓存倍率 0.5）× 模型倍率 1.25 × 分组倍率 1 = 1500 额度，实际扣费 $0.003000');
  });

  it('says "more than N" instead of "N in total" when the server capped its count', async () => {
    mockApi({ 'GET /api/log/': () => ok({ items: [entry], total: 10000, total_capped: true, page: 1, page_size: 10 }), 'GET /api/log/stat': () => ok({ quota: 0, rpm: 0, tpm: 0 }) });
    renderApp('/log', ROOT_USER);
    expect(await screen.findByText('超过 10000 条')).toBeTruthy();
    expect(screen.queryByText('共 10000 条')).toBeNull();
  });

  it('users query their own log without the admin filters or columns', async () => {
    const server = mockApi({ 'GET /api/log/self': () => page([{ ...entry, other: '' }]), 'GET /api/log/self/stat': () => ok({ quota: 0, rpm: 0, tpm: 0 }) });
    renderApp('/log', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(1));
    const query = server.find('GET', '/api/log/self/')[0].query;
    expect(query.has('username')).toBe(false);
    expect(query.has('channel')).toBe(false);
    expect(screen.queryByText('渠道')).toBeNull();
    expect(screen.queryByText('清除历史日志')).toBeNull();
  });

  it("clear logs defaults to one month ago and reports 'log clear failed:'", async () => {
    const server = mockApi({
      'GET /api/log/': () => page([]),
      'GET /api/log/stat': () => ok({ quota: 0, rpm: 0, tpm: 0 }),
      'DELETE /api/log/': () => fail('disk full'),
    });
    renderApp('/log', ROOT_USER);
    fireEvent.click(await waitFor(() => button(document, '清除历史日志')));
    const picker = (await screen.findByLabelText('清除此时间之前的日志')) as HTMLInputElement;
    expect(picker.value.slice(0, 10)).toBe(dayjs().subtract(1, 'month').format('YYYY-MM-DD'));
    fireEvent.click(button(document, '确认清除'));
    expect(await screen.findByText('日志清理失败：disk full')).toBeTruthy();
    const target = Number(server.find('DELETE', '/api/log/')[0].query.get('target_timestamp'));
    expect(Math.abs(target - dayjs().subtract(1, 'month').unix())).toBeLessThan(120);
  });
});
