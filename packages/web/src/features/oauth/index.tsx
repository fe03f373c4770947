import { Button, Result, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { OAUTH_PROVIDERS } from '@modelgate/shared/api';
import { useSession } from '../../app/session';
import { showSuccess } from '../../lib/feedback';
import { finishOAuth, type OAuthProvider } from './api';
import { isChallenge } from '../two-factor/api';

const isProvider = (v: string | undefined): v is OAuthProvider => (OAUTH_PROVIDERS as readonly string[]).includes(v ?? '');

/** How long a failure stays on screen before the redirect (long enough to read the message). */
export const FAILURE_REDIRECT_SECONDS = 5;

/**
 * The OAuth callback screen (`/oauth/{type}`, spec §2): hands the provider's code and state to the
 * server once (a code and a state are single use, so a retry could only fail), then goes to the
 * token list after a sign-in, to personal settings after a bind. A failure shows the server's
 * message, then goes to settings (or the login page when signed out) after a few seconds (spec §8).
 */
export default function OAuthCallbackPage() {
  const { t } = useTranslation('auth');
  const { type } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { user, signIn } = useSession();
  const started = useRef(false);
  // Decided once: a sign-in during this screen must not turn a failure's way back into /setting.
  const [fallback] = useState(() => (user ? '/setting' : '/login'));
  const [failure, setFailure] = useState<string | null>(null);
  const [left, setLeft] = useState(FAILURE_REDIRECT_SECONDS);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
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
        } else if (isChallenge(result)) {
          // Two-factor on: the second-step screen asks for the code, then starts the session.
          void navigate('/login/2fa', { replace: true, state: { flowToken: result.flow_token } });
        } else {
          signIn(result);
          showSuccess(t('login.success'));
          void navigate('/token', { replace: true });
        }
      },
      (error: unknown) => setFailure(error instanceof Error && error.message ? error.message : t('oauth.failed')),
    );
  }, [fallback, navigate, params, signIn, t, type]);

  useEffect(() => {
    if (failure === null) return;
    if (left <= 0) {
      void navigate(fallback, { replace: true });
      return;
    }
    const timer = setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [failure, fallback, left, navigate]);

  if (failure !== null) {
    return (
      <Result
        status="error"
        title={t('oauth.failed')}
        subTitle={
          <>
            <div data-testid="oauth-error">{failure}</div>
            <div>{t('oauth.redirectIn', { seconds: left })}</div>
          </>
        }
        extra={
          <Button type="primary" onClick={() => void navigate(fallback, { replace: true })}>
            {fallback === '/setting' ? t('oauth.backToSetting') : t('oauth.backToLogin')}
          </Button>
        }
      />
    );
  }
  return <Result icon={<Spin size="large" />} title={t('oauth.processing')} />;
}
