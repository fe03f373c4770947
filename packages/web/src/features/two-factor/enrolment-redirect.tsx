import { useQuery } from '@tanstack/react-query';
import { Navigate, useLocation } from 'react-router';
import { useSession } from '../../app/session';
import { isAdmin } from '../../lib/roles';
import { fetchTwoFactorStatus, twoFactorKeys } from './api';

/** Where an admin enrols: personal settings, whose security card says why. */
const ENROL_PATH = '/setting';

/**
 * TwoFactorRequiredForAdmins: an admin or root without a second factor is sent to enrol before
 * anything else (the server refuses their other calls too). Asked again at every page change, so
 * turning the policy on takes effect at the next navigation.
 */
export function EnrolmentRedirect() {
  const { user } = useSession();
  const location = useLocation();
  const admin = isAdmin(user);
  const status = useQuery({
    // One entry per page: each navigation asks again (enrolling invalidates them all, by prefix).
    queryKey: [...twoFactorKeys.status, location.pathname],
    queryFn: fetchTwoFactorStatus,
    enabled: admin,
    staleTime: 0,
  });
  if (!admin || !status.data?.enrolment_required || location.pathname === ENROL_PATH) return null;
  return <Navigate to={`${ENROL_PATH}?tab=personal`} replace />;
}
