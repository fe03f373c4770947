import { waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi, ok } from '../test/mock-api';
import { PLAIN_USER, renderApp } from '../test/render';

const tokenList = { 'GET /api/token/': () => ok([]), 'GET /api/user/models': () => ok([]), 'GET /api/user/self/groups': () => ok({}) };

describe('console redirects (issue 17 item 9)', () => {
  it('routes /console to the token list', async () => {
    mockApi(tokenList);
    const { router } = renderApp('/console', PLAIN_USER);
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
  });

  it('sends a signed-out visitor of /console to /login', async () => {
    mockApi({});
    const { router } = renderApp('/console');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });
});
