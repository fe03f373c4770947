import { SafetyOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import type { LoginResult } from '@modelgate/shared/api';
import { showError } from '../../lib/feedback';
import { finishTwoFactorLogin } from './api';

interface SecondFactorStepProps {
  flowToken: string;
  onSignedIn: (user: LoginResult) => void;
  onCancel: () => void;
}

/**
 * The login screen's second step (docs/security.md#second-factor): the password (or provider) was
 * right, and the session starts only once a code from the authenticator app, or a backup code, is.
 */
export function SecondFactorStep({ flowToken, onSignedIn, onCancel }: SecondFactorStepProps) {
  const { t } = useTranslation('auth');
  const [form] = Form.useForm<{ code: string }>();
  const mutation = useMutation({
    mutationFn: (code: string) => finishTwoFactorLogin(flowToken, code),
    onSuccess: onSignedIn,
    onError: () => form.setFieldValue('code', ''),
  });
  const submit = ({ code }: { code?: string }) => {
    const typed = (code ?? '').trim();
    if (!typed) {
      showError(t('twoFactor.codeRequired'));
      return;
    }
    mutation.mutate(typed);
  };
  return (
    <>
      <Alert type="info" showIcon className="mg-auth-alert" title={t('twoFactor.prompt')} />
      <Form form={form} layout="vertical" onFinish={submit} requiredMark={false} size="large" name="second-factor">
        <Form.Item name="code" label={t('twoFactor.code')} extra={t('twoFactor.backupHint')}>
          <Input prefix={<SafetyOutlined />} placeholder={t('twoFactor.codePlaceholder')} autoComplete="one-time-code" autoFocus maxLength={32} />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={mutation.isPending}>
          {t('twoFactor.submit')}
        </Button>
      </Form>
      <Button type="link" block className="mg-auth-switch" onClick={onCancel}>
        {t('twoFactor.back')}
      </Button>
    </>
  );
}
