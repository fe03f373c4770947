import { RedemptionStatus } from '@modelgate/shared';
import { Button, Popconfirm, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Redemption } from '../api';

interface RedemptionRowActionsProps {
  code: Redemption;
  busy: boolean;
  onCopy: () => void;
  onToggle: (status: number) => void;
  onEdit: () => void;
  onDelete: () => void;
}

/** Spec §4: a used code is never enabled again, and only an unused one is edited. */
export function RedemptionRowActions({ code, busy, onCopy, onToggle, onEdit, onDelete }: RedemptionRowActionsProps) {
  const { t } = useTranslation('redemption');
  const used = code.status === RedemptionStatus.Used;
  return (
    <Space size={0} wrap className="mg-row-actions">
      <Button type="link" size="small" onClick={onCopy}>
        {t('common:action.copy')}
      </Button>
      {code.status === RedemptionStatus.Unused ? (
        <Button type="link" size="small" danger disabled={busy} onClick={() => onToggle(RedemptionStatus.Disabled)}>
          {t('action.disable')}
        </Button>
      ) : (
        <Button type="link" size="small" disabled={busy || used} onClick={() => onToggle(RedemptionStatus.Unused)}>
          {t('action.enable')}
        </Button>
      )}
      <Button type="link" size="small" disabled={code.status !== RedemptionStatus.Unused} onClick={onEdit}>
        {t('common:action.edit')}
      </Button>
      <Popconfirm
        title={t('action.deleteTitle')}
        description={t('action.deleteWarning', { name: code.name })}
        okText={t('common:action.delete')}
        okButtonProps={{ danger: true }}
        cancelText={t('common:action.cancel')}
        onConfirm={onDelete}
      >
        <Button type="link" size="small" danger disabled={busy}>
          {t('common:action.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}
