import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createQueryClient, Providers } from '../../app/providers';
import { button, popover } from '../../test/dom';
import { done, mockApi, ok } from '../../test/mock-api';
import { ROOT_USER } from '../../test/render';
import { RatioSection } from './sections/ratio-section';

/** 12 ratio-priced models, so the visual table has two pages of 10. */
const RATIOS = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`model-${String(i).padStart(2, '0')}`, i + 1]));
const OPTIONS = {
  ModelPrice: JSON.stringify({ 'dall-e-3': 0.04 }),
  ModelRatio: JSON.stringify({ ...RATIOS, 'gpt-4o': 1.25 }),
  CompletionRatio: JSON.stringify({ 'gpt-4o': 4 }),
  CacheRatio: JSON.stringify({ 'gpt-4o': 0.5 }),
  CreateCacheRatio: '{}',
  AllowUnpricedModels: 'false',
};

function setup(enabled: string[] = ['gpt-4o', 'dall-e-3']) {
  const stored: Record<string, string> = { ...OPTIONS };
  const server = mockApi({
    'GET /api/option/': () => ok(Object.entries(stored).map(([key, value]) => ({ key, value }))),
    'PUT /api/option/': (call) => {
      const body = call.body as { key: string; value: string };
      stored[body.key] = body.value;
      return done;
    },
    'POST /api/option/rest_model_ratio': () => done,
    'GET /api/channel/models_enabled': () => ok(enabled),
  });
  localStorage.setItem('user', JSON.stringify(ROOT_USER));
  render(
    <Providers queryClient={createQueryClient()}>
      <RatioSection />
    </Providers>,
  );
  return { server, stored, puts: () => server.find('PUT', '/api/option/').map((c) => c.body as { key: string; value: string }) };
}

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('[data-testid="ratio-visual-editor"] .ant-table-tbody tr.ant-table-row'));
const dialog = () => document.querySelector<HTMLElement>('.ant-modal-wrap:not([style*="display: none"]) .ant-modal')!;
const openVisual = async () => {
  fireEvent.click(await screen.findByText('可视化倍率设置'));
  await waitFor(() => expect(rows()).toHaveLength(10));
};

describe('model ratio editor (JSON)', () => {
  it('shows the options pretty-printed, refuses invalid JSON naming the field, saves only what changed', async () => {
    const { puts } = setup();
    const ratio = await waitFor(() => {
      const el = document.getElementById('ratio-json-ModelRatio') as HTMLTextAreaElement | null;
      expect(el).toBeTruthy();
      return el!;
    });
    expect((document.getElementById('ratio-json-ModelPrice') as HTMLTextAreaElement).value).toBe('{\n  "dall-e-3": 0.04\n}');
    expect((document.getElementById('ratio-json-CacheRatio') as HTMLTextAreaElement).value).toBe('{\n  "gpt-4o": 0.5\n}');
    expect(screen.getByText('缓存写入倍率')).toBeTruthy();
    fireEvent.change(ratio, { target: { value: '{"gpt-4o": 1.25,' } });
    fireEvent.click(button(document.body, '保存模型倍率'));
    expect(await screen.findByText('模型倍率: 不是合法的 JSON 字符串')).toBeTruthy();
    fireEvent.change(ratio, { target: { value: '{"gpt-4o": -1}' } });
    fireEvent.click(button(document.body, '保存模型倍率'));
    expect(await screen.findByText('模型倍率: 倍率不能为负数 (ModelRatio.gpt-4o)')).toBeTruthy();
    expect(puts()).toHaveLength(0);

    fireEvent.change(ratio, { target: { value: '{"gpt-4o":2}' } });
    fireEvent.click(button(document.body, '保存模型倍率'));
    await waitFor(() => expect(puts()).toEqual([{ key: 'ModelRatio', value: '{\n  "gpt-4o": 2\n}' }]));
  });
});

describe('visual ratio editor', () => {
  it('pages by 10, refuses non-numbers and duplicate names, and a fixed price disables the ratios', async () => {
    setup();
    await openVisual();
    fireEvent.click(screen.getByTitle('2'));
    await waitFor(() => expect(rows()).toHaveLength(4));

    fireEvent.click(button(document.body, '添加模型'));
    const modal = await waitFor(dialog);
    fireEvent.change(within(modal).getByLabelText('模型名称'), { target: { value: 'gpt-4o' } });
    fireEvent.change(within(modal).getByLabelText('模型倍率'), { target: { value: 'abc' } });
    fireEvent.click(button(modal, '确定'));
    expect(await within(modal).findByText('模型名称已存在')).toBeTruthy();
    expect(await within(modal).findByText('请输入数字')).toBeTruthy();

    fireEvent.change(within(modal).getByLabelText('固定价格（美元/次）'), { target: { value: '0.5' } });
    await waitFor(() => expect((within(modal).getByLabelText('模型倍率') as HTMLInputElement).disabled).toBe(true));
    expect((within(modal).getByLabelText('补全倍率') as HTMLInputElement).disabled).toBe(true);
  }, 40_000);

  it('edits a model\'s cache read and write ratios and saves only the two cache tables', async () => {
    const { puts } = setup();
    await openVisual();
    fireEvent.change(screen.getByPlaceholderText('搜索模型'), { target: { value: 'gpt-4o' } });
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(rows()[0]!.textContent).toContain('0.5');
    fireEvent.click(screen.getByLabelText('编辑 gpt-4o'));
    const modal = await waitFor(dialog);
    await waitFor(() => expect((within(modal).getByLabelText('缓存读取倍率') as HTMLInputElement).value).toBe('0.5'));
    fireEvent.change(within(modal).getByLabelText('缓存读取倍率'), { target: { value: '0.25' } });
    fireEvent.change(within(modal).getByLabelText('缓存写入倍率'), { target: { value: '1.25' } });
    fireEvent.click(button(modal, '确定'));
    await waitFor(() => expect(rows()[0]!.textContent).toContain('0.25'));
    fireEvent.click(button(document.body, '保存可视化设置'));
    await waitFor(() =>
      expect(puts()).toEqual([
        { key: 'CacheRatio', value: '{\n  "gpt-4o": 0.25\n}' },
        { key: 'CreateCacheRatio', value: '{\n  "gpt-4o": 1.25\n}' },
      ]),
    );
  }, 60_000);

  it('adds, edits and deletes rows, then saves the tables pretty-printed', async () => {
    const { puts } = setup();
    await openVisual();
    fireEvent.click(button(document.body, '添加模型'));
    let modal = await waitFor(dialog);
    fireEvent.change(within(modal).getByLabelText('模型名称'), { target: { value: 'my-model' } });
    fireEvent.change(within(modal).getByLabelText('模型倍率'), { target: { value: '0.5' } });
    fireEvent.change(within(modal).getByLabelText('补全倍率'), { target: { value: '3' } });
    fireEvent.click(button(modal, '确定'));
    await waitFor(() => expect(rows()[0]!.textContent).toContain('my-model'));

    fireEvent.click(screen.getByLabelText('编辑 my-model'));
    modal = await waitFor(dialog);
    await waitFor(() => expect((within(modal).getByLabelText('模型倍率') as HTMLInputElement).value).toBe('0.5'));
    fireEvent.change(within(modal).getByLabelText('固定价格（美元/次）'), { target: { value: '0.02' } });
    fireEvent.click(button(modal, '确定'));
    await waitFor(() => expect(rows()[0]!.textContent).toContain('0.02'));

    fireEvent.change(screen.getByPlaceholderText('搜索模型'), { target: { value: 'dall' } });
    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.click(screen.getByLabelText('删除 dall-e-3'));
    fireEvent.click(button(popover(), '确定'));
    await waitFor(() => expect(rows()).toHaveLength(0));

    fireEvent.click(button(document.body, '保存可视化设置'));
    await waitFor(() => expect(puts().map((p) => p.key)).toEqual(['ModelPrice']));
    expect(JSON.parse(puts()[0]!.value)).toEqual({ 'my-model': 0.02 });
    expect(puts()[0]!.value).toBe('{\n  "my-model": 0.02\n}');
  }, 60_000);
});

describe('unpriced models and reset', () => {
  it('lists enabled models without a price, opens the add dialog for one, and switches AllowUnpricedModels', async () => {
    const { puts } = setup(['gpt-4o', 'dall-e-3', 'mystery-model']);
    expect(await screen.findByText('1 个已启用的模型没有价格或倍率，调用时将被拒绝')).toBeTruthy();
    fireEvent.click(within(screen.getByTestId('unpriced-models')).getByText('mystery-model'));
    const modal = await waitFor(dialog);
    await waitFor(() => expect((within(modal).getByLabelText('模型名称') as HTMLInputElement).value).toBe('mystery-model'));
    fireEvent.click(button(modal, '取消'));

    fireEvent.click(screen.getByLabelText('允许未定价的模型（按倍率 30 计费）'));
    await waitFor(() => expect(puts()).toEqual([{ key: 'AllowUnpricedModels', value: 'true' }]));
  });

  it('resets the tables to the defaults after a confirmation', async () => {
    const { server } = setup();
    fireEvent.click(button(await screen.findByText('模型倍率设置').then((el) => el.closest('.ant-card') as HTMLElement), '重置为默认倍率'));
    fireEvent.click(button(popover(), '确定'));
    await waitFor(() => expect(server.find('POST', '/api/option/rest_model_ratio')).toHaveLength(1));
    // Every price table, not only the model ratios the reference console resets.
    expect(server.find('POST', '/api/option/rest_model_ratio')[0]!.query.get('scope')).toBe('all');
    expect(await screen.findByText('模型倍率已重置为默认值')).toBeTruthy();
  });
});
