import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { isAdmin } from '../lib/roles';
import { Forbidden } from '../components/forbidden';
import { useSession } from './session';

/** Spec §2: visitors without a stored user go to /login; the server still checks every call. */
export function RequireUser({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}

export function RequireAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (!isAdmin(user)) return <Forbidden />;
  return <>{children}</>;
}
