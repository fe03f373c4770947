import { CopyOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { AuthCard } from '../../components/auth-card';
import { copyText } from '../../lib/clipboard';
import { confirmPasswordReset } from './api';

export default function PasswordResetConfirmPage() {
  const { t } = useTranslation('auth');
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const mutation = useMutation({
    mutationFn: () => confirmPasswordReset(email, token),
    onSuccess: (password) => void copyText(password, t('resetConfirm.copied')),
  });
  const newPassword = mutation.data;

  return (
    <AuthCard
      title={t('resetConfirm.title')}
      footer={<Link to="/login">{t('register.toLogin')}</Link>}
    >
      {!email || !token ? (
        <Alert type="error" showIcon title={t('resetConfirm.invalidLink')} />
      ) : (
        <Form layout="vertical" size="large">
          <Form.Item label={t('register.email')}>
            <Input value={email} disabled />
          </Form.Item>
          {newPassword ? (
            <Form.Item label={t('resetConfirm.newPassword')}>
              <Space.Compact block>
                <Input value={newPassword} readOnly data-testid="new-password" />
                <Button icon={<CopyOutlined aria-hidden />} onClick={() => void copyText(newPassword, t('resetConfirm.copied'))}>
                  {t('common:action.copy')}
                </Button>
              </Space.Compact>
              <Typography.Text type="secondary">{t('resetConfirm.changeHint')}</Typography.Text>
            </Form.Item>
          ) : (
            <Button type="primary" block loading={mutation.isPending} onClick={() => mutation.mutate()}>
              {t('resetConfirm.submit')}
            </Button>
          )}
        </Form>
      )}
    </AuthCard>
  );
}
