import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { ChunkLoadError } from '../i18n';
import { browser } from '../lib/api';
import { mockApi } from '../test/mock-api';
import { createQueryClient, Providers } from './providers';
import { isChunkLoadError } from './route-error';
import { shellRoutes } from './router';

/** What Chromium says when a screen chunk is gone (a redeploy removed it). */
const missingChunk = () => new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/token-Dx1.js');

/** A screen the test lets arrive when it wants. */
function gatedScreen(text: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const route: RouteObject = {
    path: 'slow',
    lazy: async () => {
      await gate;
      return { Component: () => <p>{text}</p> };
    },
  };
  return { route, release };
}

function renderShell(screens: RouteObject[], path: string) {
  mockApi({});
  const router = createMemoryRouter(shellRoutes(screens), { initialEntries: [path] });
  render(
    <Providers queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </Providers>,
  );
  return router;
}

describe('lazily loaded screens', () => {
  it('shows the loading state inside the layout while the first screen arrives', async () => {
    const slow = gatedScreen('arrived');
    renderShell([slow.route], '/slow');
    expect(await screen.findByText('加载中…')).toBeTruthy();
    // The header is already there.
    expect(screen.getByRole('link', { name: 'ModelGate' })).toBeTruthy();
    slow.release();
    expect(await screen.findByText('arrived')).toBeTruthy();
    expect(screen.queryByText('加载中…')).toBeNull();
  });

  it('shows the loading state, not the page being left, while a new screen arrives', async () => {
    const slow = gatedScreen('arrived');
    const router = renderShell([{ index: true, element: <p>start</p> }, slow.route], '/');
    await screen.findByText('start');
    void router.navigate('/slow');
    expect(await screen.findByText('加载中…')).toBeTruthy();
    expect(screen.queryByText('start')).toBeNull();
    slow.release();
    expect(await screen.findByText('arrived')).toBeTruthy();
  });

  it('offers a reload when a screen chunk cannot be fetched', async () => {
    const reload = vi.spyOn(browser, 'reload').mockImplementation(() => {});
    renderShell([{ path: 'gone', lazy: () => Promise.reject(missingChunk()) }], '/gone');
    expect(await screen.findByText('页面加载失败')).toBeTruthy();
    expect(screen.getByText('控制台可能刚刚更新，或网络连接中断了。请重新加载页面。')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'ModelGate' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /重新加载/ }));
    expect(reload).toHaveBeenCalledOnce();
  });

  it('says the same in English', async () => {
    const { default: i18n } = await import('../i18n');
    await i18n.changeLanguage('en');
    renderShell([{ path: 'gone', lazy: () => Promise.reject(missingChunk()) }], '/gone');
    expect(await screen.findByText('This page could not be loaded')).toBeTruthy();
    expect(screen.getByRole('button', { name: /Reload/ })).toBeTruthy();
  });

  it('reports any other failure as an error on the page, with the same way out', async () => {
    renderShell([{ path: 'broken', lazy: () => Promise.reject(new Error('boom')) }], '/broken');
    expect(await screen.findByText('页面出错了')).toBeTruthy();
    expect(screen.getByRole('button', { name: /重新加载/ })).toBeTruthy();
  });

  it('recovers on the next navigation elsewhere', async () => {
    const router = renderShell([{ index: true, element: <p>start</p> }, { path: 'gone', lazy: () => Promise.reject(missingChunk()) }], '/gone');
    await screen.findByText('页面加载失败');
    void router.navigate('/');
    await waitFor(() => expect(screen.queryByText('页面加载失败')).toBeNull());
    expect(await screen.findByText('start')).toBeTruthy();
  });
});

describe('isChunkLoadError', () => {
  it('knows how each browser and Vite word a missing chunk', () => {
    expect(isChunkLoadError(missingChunk())).toBe(true);
    expect(isChunkLoadError(new TypeError('error loading dynamically imported module: http://x/a.js'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkLoadError(new Error('Unable to preload CSS for /assets/log-1.css'))).toBe(true);
    expect(isChunkLoadError(new ChunkLoadError('translations not loaded: token'))).toBe(true);
    expect(isChunkLoadError(new Error('boom'))).toBe(false);
    expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false);
  });
});
