import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button } from '../../test/dom';
import { aLogEntry } from '../../test/fixtures';
import { fail, mockApi, ok } from '../../test/mock-api';
import { renderApp } from '../../test/render';

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('usage by key (public)', () => {
  it('looks up the key signed out and shows its calls with totals', async () => {
    const server = mockApi({
      'GET /api/log/token': () =>
        ok([
          aLogEntry(7, { type: 2, model_name: 'gpt-4o-mini', prompt_tokens: 10, completion_tokens: 5, quota: 250000 }),
          aLogEntry(6, { type: 2, model_name: 'gpt-4', prompt_tokens: 20, completion_tokens: 5, quota: 250000 }),
        ]),
    });
    renderApp('/usage');
    fireEvent.change(await screen.findByLabelText('API 令牌'), { target: { value: ' sk-abc123 ' } });
    fireEvent.click(button(document.body, '查询'));
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(server.find('GET', '/api/log/token')[0]!.query.get('key')).toBe('sk-abc123');
    expect(screen.getByText('$1.0000')).toBeTruthy();
    expect(screen.getByText('40')).toBeTruthy();
  });

  it('shows the server’s refusal of an unknown key', async () => {
    mockApi({ 'GET /api/log/token': () => fail('令牌不存在或无权查看') });
    renderApp('/usage');
    fireEvent.change(await screen.findByLabelText('API 令牌'), { target: { value: 'sk-nope' } });
    fireEvent.click(button(document.body, '查询'));
    expect((await screen.findAllByText('令牌不存在或无权查看')).length).toBeGreaterThan(0);
  });
});
