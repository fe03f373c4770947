import { TokenStatus } from '@modelgate/shared';
import { Button, Popconfirm, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Token } from '../api';
import { TokenChatMenu } from './token-chat-menu';

interface TokenRowActionsProps {
  token: Token;
  busy: boolean;
  onCopy: () => void;
  onToggle: (status: number) => void;
  onEdit: () => void;
  onDelete: () => void;
}

export function TokenRowActions({ token, busy, onCopy, onToggle, onEdit, onDelete }: TokenRowActionsProps) {
  const { t } = useTranslation('token');
  return (
    <Space size={0} wrap className="mg-row-actions">
      <Button type="link" size="small" onClick={onCopy}>
        {t('common:action.copy')}
      </Button>
      <TokenChatMenu token={token} />
      {token.status === TokenStatus.Enabled ? (
        <Button type="link" size="small" danger disabled={busy} onClick={() => onToggle(TokenStatus.Disabled)}>
          {t('action.disable')}
        </Button>
      ) : (
        // The server refuses to re-enable an expired or exhausted token; it explains why.
        <Button type="link" size="small" disabled={busy} onClick={() => onToggle(TokenStatus.Enabled)}>
          {t('action.enable')}
        </Button>
      )}
      <Button type="link" size="small" onClick={onEdit}>
        {t('common:action.edit')}
      </Button>
      <Popconfirm
        title={t('action.deleteTitle')}
        description={t('action.deleteWarning', { name: token.name })}
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
