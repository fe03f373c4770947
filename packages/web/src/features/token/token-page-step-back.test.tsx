import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button, popover } from '../../test/dom';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';
import { aToken } from '../../test/fixtures';
import type { Token } from './api';

const token = (id: number): Token => aToken(id, { name: `token-${id}`, key: `key${String(id).padStart(45, '0')}` });

const rows = () => Array.from(document.querySelectorAll<HTMLElement>('.ant-table-tbody tr.ant-table-row'));

describe('token list paging', () => {
  it('steps back to the previous page when a delete empties the last one', async () => {
    let lastDeleted = false;
    const server = mockApi({
      'GET /api/user/models': () => ok([]),
      'GET /api/user/self/groups': () => ok({}),
      'GET /api/token/': (call) =>
        ok(call.query.get('p') === '0' ? Array.from({ length: 10 }, (_, i) => token(i + 1)) : lastDeleted ? [] : [token(11)]),
      'DELETE /api/token/:id': () => {
        lastDeleted = true;
        return ok(null);
      },
    });
    renderApp('/token', PLAIN_USER);
    await waitFor(() => expect(rows()).toHaveLength(10));
    fireEvent.click(document.querySelector<HTMLElement>('.ant-pagination-item-2')!);
    await waitFor(() => expect(rows()).toHaveLength(1));

    fireEvent.click(button(rows()[0]!, '删除'));
    fireEvent.click(button(await waitFor(popover), '删除'));
    // The emptied page 2 is left for page 1 with its rows, without the user paging back by hand.
    await waitFor(() => expect(rows()).toHaveLength(10));
    expect(document.querySelector('.ant-pagination-item-active')?.textContent).toBe('1');
    const pages = server.find('GET', '/api/token/').map((call) => call.query.get('p'));
    expect(pages.lastIndexOf('0')).toBeGreaterThan(pages.lastIndexOf('1'));
  });
});
