import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Form, Input } from 'antd';
import { lazy, Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../../app/session';
import { AuthCard } from '../../components/auth-card';
import { TurnstileWidget, useTurnstile } from '../../components/turnstile';
import { modal, showError, showSuccess } from '../../lib/feedback';
import type { LoginBody } from '@modelgate/shared/api';
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

  const mutation = useMutation({
    mutationFn: (input: LoginBody) => login(input, turnstile.token),
    onSuccess: (user, input) => {
      const defaultPassword = input.username === DEFAULT_ROOT.username && input.password === DEFAULT_ROOT.password;
      // Two-factor on: no session yet; the next screen takes the code (features/two-factor).
      if ('require_2fa' in user) return void navigate('/login/2fa', { state: { flowToken: user.flow_token, defaultPassword } });
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
    },
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
    mutation.mutate(input);
  };

  // Signed in already (and not this page's own sign-in, which navigates away): say so instead of
  // the form. Not a redirect: flows that end the session and come here must land on the form.
  if (user && !mutation.isSuccess) {
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
        <Button type="primary" htmlType="submit" block loading={mutation.isPending}>
          {t('login.submit')}
        </Button>
      </Form>
      {otherMethods && (
        <Suspense fallback={null}>
          <OAuthLoginButtons />
        </Suspense>
      )}
    </AuthCard>
  );
}
