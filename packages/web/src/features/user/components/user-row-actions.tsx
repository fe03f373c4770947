import { Role, UserStatus } from '@modelgate/shared';
import { Button, Popconfirm, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ManageAction, User } from '../api';

interface UserRowActionsProps {
  user: User;
  busy: boolean;
  onManage: (action: ManageAction) => void;
  onEdit: () => void;
}

/**
 * Buttons are disabled where the server would refuse anyway (spec §4, §6): the super admin
 * cannot be demoted, disabled or deleted, admins are not promoted further from here, and a
 * status-3 account cannot be enabled.
 */
export function UserRowActions({ user, busy, onManage, onEdit }: UserRowActionsProps) {
  const { t } = useTranslation('user');
  const isRoot = user.role >= Role.Root;
  return (
    <Space size={0} wrap className="mg-row-actions">
      <Button type="link" size="small" disabled={busy || user.role >= Role.Admin} onClick={() => onManage('promote')}>
        {t('action.promote')}
      </Button>
      <Button
        type="link"
        size="small"
        disabled={busy || isRoot || user.role < Role.Admin}
        onClick={() => onManage('demote')}
      >
        {t('action.demote')}
      </Button>
      {user.status === UserStatus.Enabled ? (
        <Button type="link" size="small" danger disabled={busy || isRoot} onClick={() => onManage('disable')}>
          {t('action.disable')}
        </Button>
      ) : (
        <Button type="link" size="small" disabled={busy || user.status === UserStatus.NotEnableable} onClick={() => onManage('enable')}>
          {t('action.enable')}
        </Button>
      )}
      <Button type="link" size="small" onClick={onEdit}>
        {t('common:action.edit')}
      </Button>
      <Popconfirm
        title={t('action.deleteTitle')}
        description={t('action.deleteWarning')}
        okText={t('action.deleteConfirm')}
        okButtonProps={{ danger: true }}
        cancelText={t('common:action.cancel')}
        onConfirm={() => onManage('delete')}
        disabled={isRoot}
      >
        <Button type="link" size="small" danger disabled={busy || isRoot}>
          {t('action.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}
