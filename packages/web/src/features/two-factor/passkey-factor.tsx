import { KeyOutlined } from '@ant-design/icons';
import type { LoginResult } from '@modelgate/shared/api';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Divider } from 'antd';
import { useTranslation } from 'react-i18next';
import { finishWithPasskey, secondFactorPasskeyOptions } from './passkeys-api';
import { getAssertion, reportPasskeyError } from './webauthn';

interface PasskeyFactorProps {
  flowToken: string;
  /** The account also has TOTP: the code form is above, this is the alternative. */
  alternative: boolean;
  onSignedIn: (user: LoginResult) => void;
}

/** The second step with a passkey: options naming the account's passkeys, the browser's prompt, then the session. */
export default function PasskeyFactor({ flowToken, alternative, onSignedIn }: PasskeyFactorProps) {
  const { t } = useTranslation('passkey');
  const mutation = useMutation({
    mutationFn: async () => finishWithPasskey(flowToken, await getAssertion(await secondFactorPasskeyOptions(flowToken))),
    onSuccess: onSignedIn,
    onError: reportPasskeyError,
  });
  return (
    <>
      {alternative ? <Divider plain>{t('secondFactor.or')}</Divider> : <Alert type="info" showIcon className="mg-auth-alert" title={t('secondFactor.prompt')} />}
      <Button type={alternative ? 'default' : 'primary'} size="large" block icon={<KeyOutlined aria-hidden />} loading={mutation.isPending} onClick={() => mutation.mutate()}>
        {t('secondFactor.use')}
      </Button>
    </>
  );
}
