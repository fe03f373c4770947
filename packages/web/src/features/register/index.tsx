import { USERNAME_MAX_LENGTH } from '@modelgate/shared';
import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Button, Form, Input } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useStatus } from '../../app/status';
import { AuthCard } from '../../components/auth-card';
import { TurnstileWidget, useTurnstile } from '../../components/turnstile';
import { showError, showSuccess } from '../../lib/feedback';
import type { RegisterBody } from '@modelgate/shared/api';
import { register } from './api';
import { EmailCodeFields } from './components/email-code-fields';
import { validateRegister, type RegisterFields } from './validate';


export default function RegisterPage() {
  const { t } = useTranslation('auth');
  const { status } = useStatus();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const turnstile = useTurnstile();
  const [form] = Form.useForm<RegisterFields>();
  const emailVerification = status.email_verification === true;

  // Invite links point here (`/register?aff=<code>`); keep the code for the request body.
  const aff = params.get('aff');
  useEffect(() => {
    if (aff) localStorage.setItem('aff', aff);
  }, [aff]);

  const mutation = useMutation({
    mutationFn: (input: RegisterBody) => register(input, turnstile.token),
    onSuccess: () => {
      showSuccess(t('register.success'));
      void navigate('/login');
    },
  });

  const submit = (values: Partial<RegisterFields>) => {
    const fields: RegisterFields = {
      username: (values.username ?? '').trim(),
      password: values.password ?? '',
      password2: values.password2 ?? '',
      email: (values.email ?? '').trim(),
      verification_code: (values.verification_code ?? '').trim(),
    };
    const problem = validateRegister(fields, emailVerification);
    if (problem) {
      showError(t(`register.problem.${problem}`));
      return;
    }
    if (!turnstile.ready) {
      showError(t('turnstileWait'));
      return;
    }
    mutation.mutate({ ...fields, aff_code: localStorage.getItem('aff') ?? '' });
  };

  return (
    <AuthCard
      title={t('register.title')}
      footer={
        <>
          <span>{t('register.haveAccount')}</span> <Link to="/login">{t('register.toLogin')}</Link>
        </>
      }
    >
      <Form form={form} layout="vertical" onFinish={submit} requiredMark={false} size="large">
        <Form.Item name="username" label={t('register.username')}>
          <Input
            prefix={<UserOutlined />}
            placeholder={t('register.usernamePlaceholder', { max: USERNAME_MAX_LENGTH })}
            count={{ show: true, max: USERNAME_MAX_LENGTH }}
            autoComplete="username"
          />
        </Form.Item>
        <Form.Item name="password" label={t('register.password')}>
          <Input.Password prefix={<LockOutlined />} placeholder={t('register.passwordPlaceholder')} autoComplete="new-password" />
        </Form.Item>
        <Form.Item name="password2" label={t('register.password2')}>
          <Input.Password prefix={<LockOutlined />} placeholder={t('register.password2Placeholder')} autoComplete="new-password" />
        </Form.Item>
        {emailVerification && (
          <EmailCodeFields
            getEmail={() => form.getFieldValue('email') ?? ''}
            turnstileToken={turnstile.token}
            turnstileReady={turnstile.ready}
          />
        )}
        {turnstile.enabled && <TurnstileWidget siteKey={turnstile.siteKey} onToken={turnstile.setToken} />}
        <Button type="primary" htmlType="submit" block loading={mutation.isPending}>
          {t('register.submit')}
        </Button>
      </Form>
    </AuthCard>
  );
}
