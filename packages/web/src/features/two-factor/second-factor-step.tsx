import { SafetyOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Skeleton } from 'antd';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { LoginResult } from '@modelgate/shared/api';
import { showError } from '../../lib/feedback';
import { finishTwoFactorLogin } from './api';
import { passkeyKeys, secondFactorMethods } from './passkeys-api';

// The WebAuthn library and the passkey texts load only for accounts that have a passkey.
const PasskeyFactor = lazy(() => import('./passkey-factor'));

interface SecondFactorStepProps {
  flowToken: string;
  onSignedIn: (user: LoginResult) => void;
  onCancel: () => void;
}

/**
 * The login screen's second step (docs/security.md#second-factor): the password (or provider) was
 * right, and the session starts only once a code from the authenticator app, a backup code, or
 * one of the account's passkeys is; the step offers what the account has.
 */
export function SecondFactorStep({ flowToken, onSignedIn, onCancel }: SecondFactorStepProps) {
  const { t } = useTranslation('auth');
  const [form] = Form.useForm<{ code: string }>();
  const methods = useQuery({ queryKey: passkeyKeys.methods(flowToken), queryFn: () => secondFactorMethods(flowToken), retry: false, staleTime: Infinity });
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
  if (methods.isPending) return <Skeleton active paragraph={{ rows: 3 }} />;
  // Not known (an expired flow answers with its own message at the next step): the code form.
  const totp = methods.data?.totp ?? true;
  const passkey = methods.data?.passkey ?? false;
  return (
    <>
      {totp && (
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
        </>
      )}
      {passkey && (
        <Suspense fallback={<Skeleton.Button active block size="large" />}>
          <PasskeyFactor flowToken={flowToken} alternative={totp} onSignedIn={onSignedIn} />
        </Suspense>
      )}
      <Button type="link" block className="mg-auth-switch" onClick={onCancel}>
        {t('twoFactor.back')}
      </Button>
    </>
  );
}
