import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { PageLoading } from '../components/page-loading';
import { loadNamespaces } from '../i18n';
import { RequireAdmin, RequireRoot, RequireUser } from './guards';
import { AppLayout } from './layout/app-layout';
import { RouteError } from './route-error';

/**
 * A screen's route module, loaded by the router on the first visit (one chunk per `features/*`
 * folder), together with the translation namespaces it uses beyond the bundled `common` and
 * `auth`. The router awaits both before it renders the route, so a screen never suspends
 * mid-render; `AppLayout` shows the loading state meanwhile and `RouteError` a failed download.
 * `scripts/bundle-report.mjs` reads the lines below (one screen per line) to name each chunk's route.
 */
const screen = (load: () => Promise<{ default: ComponentType }>, namespaces: readonly string[] = []) => async () => ({
  // A function rather than react-router's `lazy: { Component }` object: the router clears a lazy
  // object's keys once loaded, which would break every router after the first built from `routes`.
  Component: (await Promise.all([load(), loadNamespaces(namespaces)]))[0].default,
});

/**
 * The console shell around `screens`: the layout, and inside it the loading state while the first
 * screen arrives and the error shown when a screen fails to load or render (the header stays).
 */
export function shellRoutes(screens: RouteObject[]): RouteObject[] {
  return [
    {
      element: <AppLayout />,
      // Only when the layout itself fails (its lazy side nav or user menu did not arrive).
      errorElement: <RouteError />,
      children: [{ hydrateFallbackElement: <PageLoading />, errorElement: <RouteError />, children: screens }],
    },
  ];
}

/**
 * The spec §2 route table, limited to the screens built so far (keep `router-paths.ts` in step).
 */
export const routes: RouteObject[] = shellRoutes([
  { index: true, lazy: screen(() => import('../features/home'), ['home']) },
  { path: 'about', lazy: screen(() => import('../features/about'), ['home']) },
  { path: 'pricing', lazy: screen(() => import('../features/pricing'), ['pricing']) },
  // Usage by API key (the key is the credential): no route in the spec, so the issue's /usage.
  { path: 'usage', lazy: screen(() => import('../features/usage'), ['usage']) },
  { path: 'login', lazy: screen(() => import('../features/login')) },
  { path: 'login/2fa', lazy: screen(() => import('../features/two-factor')) },
  { path: 'register', lazy: screen(() => import('../features/register')) },
  { path: 'reset', lazy: screen(() => import('../features/password-reset')) },
  // Reached from the reset e-mail by a signed-out user, so it is public (as in the reference).
  { path: 'user/reset', lazy: screen(() => import('../features/password-reset-confirm')) },
  { path: 'oauth/:type', lazy: screen(() => import('../features/oauth')) },
  // Public in the spec route table: a visitor is told to sign in there (the screens check the session).
  { path: 'chat/:id?', lazy: screen(() => import('../features/chat'), ['chat']) },
  { path: 'chat2link', lazy: screen(() => import('../features/chat/chat2link'), ['chat']) },
  {
    element: <RequireUser />,
    children: [
      // The top nav's "console": the reference has no /console screen, the console starts at the token list.
      { path: 'console', element: <Navigate to="/token" replace /> },
      // The reference's /user/edit edits the signed-in user: here that is the personal settings.
      { path: 'user/edit', element: <Navigate to="/setting" replace /> },
      { path: 'setting', lazy: screen(() => import('../features/setting'), ['setting', 'pricing']) },
      { path: 'token', lazy: screen(() => import('../features/token'), ['token', 'limits']) },
      { path: 'detail', lazy: screen(() => import('../features/detail'), ['detail', 'limits']) },
      { path: 'log', lazy: screen(() => import('../features/log'), ['log']) },
      { path: 'midjourney', lazy: screen(() => import('../features/midjourney'), ['task']) },
      { path: 'task', lazy: screen(() => import('../features/task'), ['task']) },
      { path: 'topup', lazy: screen(() => import('../features/topup'), ['topup', 'plan', 'limits']) },
      { path: 'playground', lazy: screen(() => import('../features/playground'), ['playground']) },
      {
        element: <RequireAdmin />,
        children: [
          // The add/edit paths keep the list mounted with its drawer open, so closing returns to it.
          { path: 'channel', lazy: screen(() => import('../features/channel'), ['channel']), children: [{ index: true }, { path: 'add' }, { path: 'edit/:id' }] },
          { path: 'user', lazy: screen(() => import('../features/user'), ['user', 'limits']), children: [{ index: true }, { path: 'edit/:id' }] },
          { path: 'redemption', lazy: screen(() => import('../features/redemption'), ['redemption']) },
          { path: 'plan', lazy: screen(() => import('../features/plan'), ['plan', 'limits']) },
        ],
      },
      {
        element: <RequireRoot />,
        children: [{ path: 'audit', lazy: screen(() => import('../features/audit'), ['audit', 'setting']) }],
      },
    ],
  },
  { path: '*', lazy: screen(() => import('../features/not-found')) },
]);

export function createRouter() {
  return createBrowserRouter(routes);
}
