import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { createQueryClient, Providers } from '../app/providers';
import { routes } from '../app/router';
import type { StoredUser } from '../lib/storage';

export const ROOT_USER: StoredUser = { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1, group: 'default' };
export const PLAIN_USER: StoredUser = { id: 2, username: 'alice', display_name: 'Alice', role: 1, status: 1, group: 'default' };

/** Renders the whole console (providers, layout, routes) at `path`, optionally signed in. */
export function renderApp(path: string, user?: StoredUser) {
  if (user) localStorage.setItem('user', JSON.stringify(user));
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const utils = render(
    <Providers queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </Providers>,
  );
  return { ...utils, router };
}
