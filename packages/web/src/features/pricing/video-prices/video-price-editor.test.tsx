import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createQueryClient, Providers } from '../../../app/providers';
import { done, mockApi, ok } from '../../../test/mock-api';
import { ROOT_USER } from '../../../test/render';
import { RatioSection } from '../../setting/sections/ratio-section';

function setup() {
  const stored: Record<string, string> = { VideoPrice: JSON.stringify({ 'sora-2': { '*': 0.1 } }) };
  const server = mockApi({
    'GET /api/option/': () => ok(Object.entries(stored).map(([key, value]) => ({ key, value }))),
    'PUT /api/option/': (call) => {
      const body = call.body as { key: string; value: string };
      stored[body.key] = body.value;
      return done;
    },
    'GET /api/channel/models_enabled': () => ok([]),
  });
  localStorage.setItem('user', JSON.stringify(ROOT_USER));
  render(
    <Providers queryClient={createQueryClient()}>
      <RatioSection />
    </Providers>,
  );
  return { stored, server };
}

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('[data-testid="video-price-editor"] .ant-table-tbody tr.ant-table-row'));

describe('video price editor', () => {
  it('edits per-second prices by model and tier and saves them as the VideoPrice option', async () => {
    const { stored } = setup();
    fireEvent.click(await screen.findByText('视频价格', undefined, { timeout: 15_000 }));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(within(rows()[0]!).getByText('任意档（*）')).toBeTruthy();
    const editor = screen.getByTestId('video-price-editor');
    fireEvent.change(within(editor).getByLabelText('模型'), { target: { value: 'sora-2-pro' } });
    fireEvent.change(within(editor).getByLabelText('分辨率档'), { target: { value: 'hd' } });
    fireEvent.change(within(editor).getByLabelText('每秒美元价格'), { target: { value: '0.5' } });
    fireEvent.click(within(editor).getByRole('button', { name: /添加价格/ }));
    expect(await within(editor).findByText('请填写如 720p 的分辨率档或 *')).toBeTruthy();
    fireEvent.change(within(editor).getByLabelText('分辨率档'), { target: { value: '1024P' } });
    fireEvent.click(within(editor).getByRole('button', { name: /添加价格/ }));
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.click(within(editor).getByRole('button', { name: /保存视频价格/ }));
    await waitFor(() => expect(JSON.parse(stored.VideoPrice!)).toEqual({ 'sora-2': { '*': 0.1 }, 'sora-2-pro': { '1024p': 0.5 } }));
  });
});
