import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { mockApi, ok } from '../../test/mock-api';
import { renderApp, ROOT_USER } from '../../test/render';
import type { LogEntry } from './api';
import { localizeLogContent } from './log-content';

/** A video charged per second (issue 34): 8 s × $0.10 at 720p × group ratio 1 = $0.80 = 400 000 quota. */
const video: LogEntry = {
  id: 9, created_at: 1700000000, type: 2, content: '视频生成 8 秒，分辨率 720p，每秒价格 0.10，分组倍率 1.00', username: 'root', user_id: 1, token_name: 'tk',
  model_name: 'sora-2', quota: 400_000, prompt_tokens: 0, completion_tokens: 0, use_time: 1, is_stream: false, channel: 3, token_id: 4,
  group: 'default', other: JSON.stringify({ model_price: -1, group_ratio: 1, video: { seconds: 8, resolution: '720p', usd_per_second: 0.1 } }),
};

describe('a video’s consume log', () => {
  beforeAll(() => i18n.loadLanguages(['en', 'zh']));

  it('explains the charge per second in the detail', async () => {
    mockApi({ 'GET /api/log/': () => ok({ items: [video], total: 1, page: 1, page_size: 10 }), 'GET /api/log/stat': () => ok({ quota: 400_000, rpm: 1, tpm: 0 }) });
    renderApp('/log', ROOT_USER);
    await waitFor(() => expect(document.querySelectorAll('.ant-table-tbody tr.ant-table-row')).toHaveLength(1));
    fireEvent.click(document.querySelector('.ant-table-row-expand-icon')!);
    const formula = await screen.findByTestId('log-formula');
    expect(formula.textContent).toContain('8 秒 × 每秒 $0.1（720p）× 分组倍率 1 = $0.800000');
    expect(screen.getByText('视频时长')).toBeTruthy();
    expect(screen.queryByText('提示 tokens')).toBeNull();
  });

  it('words the stored text in English', () => {
    expect(localizeLogContent(video.content, i18n.getFixedT('en', 'log'), 'en')).toBe('Video 8 s at 720p, 0.10 per second, group ratio 1.00');
  });
});
