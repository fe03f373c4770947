import { Navigate, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { LoginResult } from '@modelgate/shared/api';
import { useSession } from '../../app/session';
import { AuthCard } from '../../components/auth-card';
import { modal, showSuccess } from '../../lib/feedback';
import { SecondFactorStep } from './second-factor-step';

/** How the login screen (or a provider's callback) hands the pending sign-in over: navigation state, never the URL. */
export interface SecondFactorState {
  flowToken: string;
  /** The password typed was root's first-start one (the console warns once signed in). */
  defaultPassword?: boolean;
}

/**
 * `/login/2fa`: the second step of a sign-in with two-factor on. Reached only with a flow token in
 * the navigation state; without one (a reload, a bookmark) it is the login screen again.
 */
export default function SecondFactorPage() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const { signIn } = useSession();
  const state = useLocation().state as SecondFactorState | null;
  if (!state?.flowToken) return <Navigate to="/login" replace />;

  const finish = (user: LoginResult) => {
    signIn(user);
    showSuccess(t('login.success'));
    if (user.default_password || state.defaultPassword) {
      modal().error({ title: t('login.defaultPasswordTitle'), content: t('login.defaultPasswordContent'), centered: true });
    }
    void navigate('/token', { replace: true });
  };
  return (
    <AuthCard title={t('twoFactor.title')}>
      <SecondFactorStep flowToken={state.flowToken} onSignedIn={finish} onCancel={() => void navigate('/login', { replace: true })} />
    </AuthCard>
  );
}
