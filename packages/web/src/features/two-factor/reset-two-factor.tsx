import { useMutation } from '@tanstack/react-query';
import { Button, Popconfirm, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { showSuccess } from '../../lib/feedback';
import { isRoot } from '../../lib/roles';
import { resetUserTwoFactor } from './api';

/**
 * The user edit drawer's reset for someone who lost their authenticator and backup codes: root
 * only (the server refuses anyone else, and records it in the audit log); their sessions end.
 */
export function ResetTwoFactor({ userId }: { userId: number }) {
  const { t } = useTranslation('user');
  const { user } = useSession();
  const mutation = useMutation({
    mutationFn: () => resetUserTwoFactor(userId),
    onSuccess: () => showSuccess(t('twoFactor.resetDone')),
  });
  if (!isRoot(user)) return null;
  return (
    <Space orientation="vertical" size="small" className="mg-stack">
      <Typography.Text type="secondary">{t('twoFactor.resetHint')}</Typography.Text>
      <Popconfirm
        title={t('twoFactor.resetTitle')}
        description={t('twoFactor.resetWarning')}
        okText={t('twoFactor.reset')}
        okButtonProps={{ danger: true }}
        cancelText={t('common:action.cancel')}
        onConfirm={() => mutation.mutate()}
      >
        <Button danger loading={mutation.isPending} data-testid="reset-two-factor">
          {t('twoFactor.reset')}
        </Button>
      </Popconfirm>
    </Space>
  );
}
