import { MailOutlined, SafetyOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Button, Form, Input, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useCountdown } from '../../../components/use-countdown';
import { showError, showSuccess } from '../../../lib/feedback';
import { sendVerificationCode } from '../api';

interface EmailCodeFieldsProps {
  getEmail: () => string;
  turnstileToken: string;
  turnstileReady: boolean;
}

/** E-mail plus code, shown when status.email_verification is on; resend waits 30 s (spec §4). */
export function EmailCodeFields({ getEmail, turnstileToken, turnstileReady }: EmailCodeFieldsProps) {
  const { t } = useTranslation('auth');
  const countdown = useCountdown(30);
  const send = useMutation({
    mutationFn: (email: string) => sendVerificationCode(email, turnstileToken),
    onSuccess: () => {
      showSuccess(t('register.codeSent'));
      countdown.start();
    },
  });

  const onSend = () => {
    const email = getEmail().trim();
    if (!email) {
      showError(t('register.emailRequired'));
      return;
    }
    if (!turnstileReady) {
      showError(t('turnstileWait'));
      return;
    }
    send.mutate(email);
  };

  return (
    <>
      <Form.Item label={t('register.email')} htmlFor="register-email">
        <Space.Compact block>
          <Form.Item name="email" noStyle>
            <Input id="register-email" prefix={<MailOutlined />} type="email" placeholder={t('register.emailPlaceholder')} autoComplete="email" />
          </Form.Item>
          <Button onClick={onSend} loading={send.isPending} disabled={countdown.active}>
            {countdown.active ? t('register.resendIn', { seconds: countdown.left }) : t('register.sendCode')}
          </Button>
        </Space.Compact>
      </Form.Item>
      <Form.Item name="verification_code" label={t('register.code')}>
        <Input prefix={<SafetyOutlined />} placeholder={t('register.codePlaceholder')} autoComplete="one-time-code" />
      </Form.Item>
    </>
  );
}
