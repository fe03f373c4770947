import { lazy, Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { isAdmin } from '../lib/roles';
import { PageLoading } from '../components/page-loading';
import { useSession } from './session';

// Rarely shown, and antd's Result illustrations are heavy: fetched only when needed.
const Forbidden = lazy(async () => ({ default: (await import('../components/forbidden')).Forbidden }));

/**
 * Layout routes around the screens they guard (`router.tsx`). Spec §2: visitors without a stored
 * user go to /login; the server still checks every call.
 */
export function RequireUser() {
  const { user } = useSession();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return <Outlet />;
}

export function RequireAdmin() {
  const { user } = useSession();
  if (!isAdmin(user)) {
    return (
      <Suspense fallback={<PageLoading />}>
        <Forbidden />
      </Suspense>
    );
  }
  return <Outlet />;
}
