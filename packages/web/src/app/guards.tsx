import { lazy, Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { isAdmin, isRoot } from '../lib/roles';
import { PageLoading } from '../components/page-loading';
import { useSession } from './session';

// Rarely shown, and antd's Result illustrations are heavy: fetched only when needed.
const Forbidden = lazy(async () => ({ default: (await import('../components/forbidden')).Forbidden }));
// The admin policy's check (TwoFactorRequiredForAdmins): kept out of the sign-in bundle.
const EnrolmentRedirect = lazy(async () => ({ default: (await import('../features/two-factor/enrolment-redirect')).EnrolmentRedirect }));

/**
 * Layout routes around the screens they guard (`router.tsx`). Spec §2: visitors without a stored
 * user go to /login; the server still checks every call.
 */
export function RequireUser() {
  const { user } = useSession();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return (
    <>
      <Suspense fallback={null}>
        <EnrolmentRedirect />
      </Suspense>
      <Outlet />
    </>
  );
}

export function RequireAdmin() {
  return <RequireRole allowed={isAdmin} />;
}

/** The audit log: the super admin only (admins act under it and do not read it). */
export function RequireRoot() {
  return <RequireRole allowed={isRoot} root />;
}

function RequireRole({ allowed, root = false }: { allowed: typeof isAdmin; root?: boolean }) {
  const { user } = useSession();
  if (!allowed(user)) {
    return (
      <Suspense fallback={<PageLoading />}>
        <Forbidden root={root} />
      </Suspense>
    );
  }
  return <Outlet />;
}
