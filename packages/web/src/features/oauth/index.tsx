import { Result, Spin } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { OAUTH_PROVIDERS } from '@modelgate/shared/api';
import { useSession } from '../../app/session';
import { showError, showSuccess } from '../../lib/feedback';
import { finishOAuth, type OAuthProvider } from './api';

const isProvider = (v: string | undefined): v is OAuthProvider => (OAUTH_PROVIDERS as readonly string[]).includes(v ?? '');

/**
 * The OAuth callback screen (`/oauth/{type}`, spec §2): hands the provider's code and state to the
 * server once (a code and a state are single use, so a retry could only fail), then goes to the
 * token list after a sign-in, to personal settings after a bind, and shows the server's message and
 * goes to settings (or the login page when signed out) after a failure (spec §8).
 */
export default function OAuthCallbackPage() {
  const { t } = useTranslation('auth');
  const { type } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { user, signIn } = useSession();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const fallback = user ? '/setting' : '/login';
    if (!isProvider(type)) {
      void navigate(fallback, { replace: true });
      return;
    }
    const query = {
      code: params.get('code') ?? '',
      state: params.get('state') ?? '',
      ...(params.get('error') ? { error: params.get('error')!, error_description: params.get('error_description') ?? undefined } : {}),
    };
    finishOAuth(type, query).then(
      (result) => {
        if (result === 'bind') {
          showSuccess(t('oauth.bound'));
          void navigate('/setting', { replace: true });
        } else {
          signIn(result);
          showSuccess(t('login.success'));
          void navigate('/token', { replace: true });
        }
      },
      (error: unknown) => {
        showError(error instanceof Error && error.message ? error.message : t('oauth.failed'));
        void navigate(fallback, { replace: true });
      },
    );
  }, [navigate, params, signIn, t, type, user]);

  return <Result icon={<Spin size="large" />} title={t('oauth.processing')} />;
}
