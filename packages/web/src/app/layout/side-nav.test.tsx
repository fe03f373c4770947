import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { aSelfUser } from '../../test/fixtures';
import { mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

const sider = () => screen.getByTestId('side-nav');
const isOpen = () => !sider().classList.contains('ant-layout-sider-collapsed');

// jsdom matches no media query, so the console renders its phone layout: the nav is an overlay.
describe('side nav on a phone', () => {
  it('starts closed, opens from the header button and closes once a destination is picked', async () => {
    mockApi({
      'GET /api/token/': () => ok([]),
      'GET /api/user/models': () => ok([]),
      'GET /api/user/self/groups': () => ok({}),
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, { username: PLAIN_USER.username })),
    });
    const { router } = renderApp('/token', PLAIN_USER);
    const toggle = await screen.findByTestId('nav-toggle');
    // The side nav is fetched with the first signed-in page.
    await screen.findByTestId('side-nav');
    expect(isOpen()).toBe(false);
    fireEvent.click(toggle);
    await waitFor(() => expect(isOpen()).toBe(true));

    fireEvent.click(sider().querySelector<HTMLAnchorElement>('a[href="/setting"]')!);
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
    await waitFor(() => expect(isOpen()).toBe(false));
    expect(document.querySelector('.mg-sider-mask')).toBeNull();
  });
});
