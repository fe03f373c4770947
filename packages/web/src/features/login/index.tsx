import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Alert, Button, Form, Input } from 'antd';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../../app/session';
import { AuthCard } from '../../components/auth-card';
import { TurnstileWidget, useTurnstile } from '../../components/turnstile';
import { modal, showError, showSuccess } from '../../lib/feedback';
import type { LoginBody, LoginResult } from '@modelgate/shared/api';
import { login } from './api';
import { useStatus } from '../../app/status';

const OAuthLoginButtons = lazy(() => import('../oauth/components/oauth-login-buttons'));

// The first-start root account (docs/architecture.md#principles): signing in with it must warn until it is changed.
// ModelGate's server also flags it (`default_password`); the reference console only compared input.
const DEFAULT_ROOT = { username: 'root', password: '123456' };

export default function LoginPage() {
  const { t } = useTranslation('auth');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { user, signIn, signOut } = useSession();
  const turnstile = useTurnstile();
  const [form] = Form.useForm<LoginBody>();
  const { status } = useStatus();
  const otherMethods = !!(status.github_oauth || status.linuxdo_oauth || status.oidc_enabled || status.discord_oauth || status.wechat_login || status.telegram_oauth);

  const expired = params.get('expired') === 'true';
  const aff = params.get('aff');
  useEffect(() => {
    if (aff) localStorage.setItem('aff', aff);
  }, [aff]);

  // Which sign-in is under way; `done` once this page signed someone in (it navigates away). Plain
  // state rather than react-query's mutations: /login stays within its bundle budget without them.
  const [busy, setBusy] = useState<'password' | 'passkey' | 'done' | null>(null);
  const run = async (kind: 'password' | 'passkey', action: () => Promise<void>) => {
    setBusy(kind);
    try {
      await action();
    } catch {
      // The API client has shown the server's message.
    }
    setBusy((b) => (b === kind ? null : b));
  };

  const finish = (user: LoginResult, defaultPassword = false) => {
    setBusy('done');
    signIn(user);
    showSuccess(t('login.success'));
    if (user.default_password || defaultPassword) {
      modal().error({
        title: t('login.defaultPasswordTitle'),
        content: t('login.defaultPasswordContent'),
        centered: true,
      });
    }
    void navigate('/token');
  };
  const signInWithPassword = (input: LoginBody) =>
    run('password', async () => {
      const user = await login(input, turnstile.token);
      const defaultPassword = input.username === DEFAULT_ROOT.username && input.password === DEFAULT_ROOT.password;
      // Two-factor on: no session yet; the next screen takes the code (features/two-factor).
      if ('require_2fa' in user) return void navigate('/login/2fa', { state: { flowToken: user.flow_token, defaultPassword } });
      finish(user, defaultPassword);
    });
  // A passkey alone (username-less): the WebAuthn library is fetched only when the button is pressed.
  const signInWithPasskey = () =>
    run('passkey', async () => {
      // A console updated since this page loaded no longer has the chunk: say so rather than nothing.
      const ceremony = await import('../two-factor/passkey-sign-in').catch(() => showError(t('common:routeError.chunkDescription')));
      const user = ceremony && (await ceremony.signInWithPasskey());
      if (user) finish(user);
    });

  const submit = (values: LoginBody) => {
    const input = { username: (values.username ?? '').trim(), password: values.password ?? '' };
    if (!input.username || !input.password) {
      showError(t('login.missingFields'));
      return;
    }
    if (!turnstile.ready) {
      showError(t('turnstileWait'));
      return;
    }
    void signInWithPassword(input);
  };

  // Signed in already (and not this page's own sign-in, which navigates away): say so instead of
  // the form. Not a redirect: flows that end the session and come here must land on the form.
  if (user && busy !== 'done') {
    return (
      <AuthCard title={t('login.title')}>
        <Alert type="info" showIcon className="mg-auth-alert" title={t('login.signedInAs', { name: user.display_name || user.username })} />
        <Button type="primary" block size="large" onClick={() => void navigate('/token')}>
          {t('login.toConsole')}
        </Button>
        <Button block size="large" className="mg-auth-switch" onClick={() => void signOut()}>
          {t('login.switchAccount')}
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title={t('login.title')}
      footer={
        <>
          <span>{t('login.noAccount')}</span> <Link to="/register">{t('login.toRegister')}</Link>
          <span className="mg-dot" aria-hidden="true" />
          <Link to="/reset">{t('login.forgot')}</Link>
        </>
      }
    >
      {expired && <Alert type="warning" showIcon className="mg-auth-alert" title={t('login.expired')} />}
      <Form form={form} layout="vertical" onFinish={submit} requiredMark={false} size="large">
        <Form.Item name="username" label={t('login.username')}>
          <Input prefix={<UserOutlined />} placeholder={t('login.usernamePlaceholder')} autoComplete="username" />
        </Form.Item>
        <Form.Item name="password" label={t('login.password')}>
          <Input.Password prefix={<LockOutlined />} placeholder={t('login.passwordPlaceholder')} autoComplete="current-password" />
        </Form.Item>
        {turnstile.enabled && <TurnstileWidget siteKey={turnstile.siteKey} onToken={turnstile.setToken} />}
        <Button type="primary" htmlType="submit" block loading={busy === 'password'}>
          {t('login.submit')}
        </Button>
      </Form>
      {typeof window.PublicKeyCredential === 'function' && (
        <Button block size="large" className="mg-auth-switch" loading={busy === 'passkey'} onClick={() => void signInWithPasskey()}>
          {t('login.passkey')}
        </Button>
      )}
      {otherMethods && (
        <Suspense fallback={null}>
          <OAuthLoginButtons />
        </Suspense>
      )}
    </AuthCard>
  );
}
