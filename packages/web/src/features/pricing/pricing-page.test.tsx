import type { ModelPricing } from '@modelgate/shared/api';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { mockApi } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

const model = (over: Partial<ModelPricing>): ModelPricing => ({
  model_name: 'm',
  quota_type: 0,
  model_ratio: 1,
  model_price: 0,
  owner_by: 'openai',
  completion_ratio: 1,
  enable_groups: ['default', 'vip'],
  ...over,
});

const MODELS = [
  model({ model_name: 'claude-3-5-haiku-20241022', model_ratio: 0.5, completion_ratio: 5 }),
  model({ model_name: 'dall-e-3', quota_type: 1, model_price: 0.04 }),
  model({ model_name: 'gpt-4o-mini', model_ratio: 0.075, completion_ratio: 4 }),
  model({ model_name: 'vip-only', enable_groups: ['vip'] }),
];

function setup(groupRatio: Record<string, number> = { default: 1, vip: 0.5 }) {
  return mockApi({
    'GET /api/pricing': () => ({ success: true, message: '', data: MODELS, group_ratio: groupRatio, usable_group: { default: '默认分组', vip: 'vip分组' } }),
  });
}

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));
const names = () => rows().map((r) => r.querySelector('code')?.textContent);

describe('pricing page', () => {
  it('signed out: the default group, gpt models first, prices per 1M tokens and per call', async () => {
    setup();
    renderApp('/pricing');
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(names()).toEqual(['gpt-4o-mini', 'claude-3-5-haiku-20241022', 'dall-e-3']);
    const [gpt, , dalle] = rows();
    expect(within(gpt!).getByText('$0.15 / 1M tokens')).toBeTruthy();
    expect(within(gpt!).getByText('$0.6 / 1M tokens')).toBeTruthy();
    expect(within(dalle!).getByText('$0.04 / 次')).toBeTruthy();
    expect(screen.getByText('以下价格按分组「default」计算，分组倍率 1。')).toBeTruthy();
  });

  it('switches group (prices × its ratio, its models), searches and copies a model name', async () => {
    setup();
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    renderApp('/pricing', { ...PLAIN_USER, group: 'vip' });
    await waitFor(() => expect(rows()).toHaveLength(4));
    expect(within(rows()[0]!).getByText('$0.075 / 1M tokens')).toBeTruthy();

    fireEvent.change(screen.getByPlaceholderText('搜索模型名称'), { target: { value: 'VIP' } });
    await waitFor(() => expect(names()).toEqual(['vip-only']));
    fireEvent.click(screen.getByLabelText('复制 vip-only'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('vip-only'));
  });
});
