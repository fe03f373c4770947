import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { RequireAdmin, RequireUser } from './guards';
import { AppLayout } from './layout/app-layout';

const Home = lazy(() => import('../features/home'));
const About = lazy(() => import('../features/about'));
const Login = lazy(() => import('../features/login'));
const Register = lazy(() => import('../features/register'));
const PasswordReset = lazy(() => import('../features/password-reset'));
const PasswordResetConfirm = lazy(() => import('../features/password-reset-confirm'));
const Setting = lazy(() => import('../features/setting'));
const Users = lazy(() => import('../features/user'));
const Tokens = lazy(() => import('../features/token'));
const Channels = lazy(() => import('../features/channel'));
const Logs = lazy(() => import('../features/log'));
const NotFound = lazy(() => import('../features/not-found'));

type Page = LazyExoticComponent<ComponentType>;
const page = (Component: Page) => <Component />;

/**
 * The spec §2 route table, limited to the screens built so far (keep `router-paths.ts` in step).
 */
export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    children: [
      { index: true, element: page(Home) },
      { path: 'about', element: page(About) },
      { path: 'login', element: page(Login) },
      { path: 'register', element: page(Register) },
      { path: 'reset', element: page(PasswordReset) },
      // Reached from the reset e-mail by a signed-out user, so it is public (as in the reference).
      { path: 'user/reset', element: page(PasswordResetConfirm) },
      { path: 'setting', element: <RequireUser>{page(Setting)}</RequireUser> },
      { path: 'token', element: <RequireUser>{page(Tokens)}</RequireUser> },
      // The add/edit routes render the list with its drawer open, so closing returns to it.
      ...['channel', 'channel/add', 'channel/edit/:id'].map((path) => ({
        path,
        element: (
          <RequireUser>
            <RequireAdmin>{page(Channels)}</RequireAdmin>
          </RequireUser>
        ),
      })),
      { path: 'log', element: <RequireUser>{page(Logs)}</RequireUser> },
      {
        path: 'user',
        element: (
          <RequireUser>
            <RequireAdmin>{page(Users)}</RequireAdmin>
          </RequireUser>
        ),
      },
      { path: '*', element: page(NotFound) },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
