import { MailOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Button, Form, Input, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { AuthCard } from '../../components/auth-card';
import { TurnstileWidget, useTurnstile } from '../../components/turnstile';
import { useCountdown } from '../../components/use-countdown';
import { showError, showSuccess } from '../../lib/feedback';
import { requestPasswordReset } from './api';

export default function PasswordResetPage() {
  const { t } = useTranslation('auth');
  const turnstile = useTurnstile();
  const countdown = useCountdown(30);
  const mutation = useMutation({
    mutationFn: (email: string) => requestPasswordReset(email, turnstile.token),
    onSuccess: () => {
      showSuccess(t('reset.sent'));
      countdown.start();
    },
  });

  const submit = ({ email }: { email?: string }) => {
    const value = (email ?? '').trim();
    if (!value) {
      showError(t('reset.emailRequired'));
      return;
    }
    if (!turnstile.ready) {
      showError(t('turnstileWait'));
      return;
    }
    mutation.mutate(value);
  };

  return (
    <AuthCard
      title={t('reset.title')}
      footer={
        <>
          <span>{t('reset.remembered')}</span> <Link to="/login">{t('register.toLogin')}</Link>
        </>
      }
    >
      <Typography.Paragraph type="secondary">{t('reset.hint')}</Typography.Paragraph>
      <Form layout="vertical" onFinish={submit} requiredMark={false} size="large">
        <Form.Item name="email" label={t('register.email')}>
          <Input prefix={<MailOutlined />} type="email" placeholder={t('register.emailPlaceholder')} autoComplete="email" />
        </Form.Item>
        {turnstile.enabled && <TurnstileWidget siteKey={turnstile.siteKey} onToken={turnstile.setToken} />}
        <Button type="primary" htmlType="submit" block loading={mutation.isPending} disabled={countdown.active}>
          {countdown.active ? t('reset.retryIn', { seconds: countdown.left }) : t('reset.submit')}
        </Button>
      </Form>
    </AuthCard>
  );
}
