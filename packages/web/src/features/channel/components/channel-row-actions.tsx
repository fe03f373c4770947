import { DownOutlined } from '@ant-design/icons';
import { ChannelStatus, channelTypeOf } from '@modelgate/shared';
import { Button, Dropdown, Popconfirm, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { splitList, type Channel } from '../api';

export interface ChannelRowHandlers {
  onTest: (channel: Channel, model?: string) => void;
  onToggle: (channel: Channel, status: number) => void;
  onEdit: (channel: Channel) => void;
  onCopy: (channel: Channel) => void;
  onDelete: (channel: Channel) => void;
}

interface ChannelRowActionsProps extends ChannelRowHandlers {
  channel: Channel;
  testing: boolean;
  busy: boolean;
}

export function ChannelRowActions({ channel, testing, busy, ...on }: ChannelRowActionsProps) {
  const { t } = useTranslation('channel');
  const models = splitList(channel.models);
  const untestable = !channelTypeOf(channel.type).testable;
  return (
    <Space size={4} wrap className="mg-row-actions">
      <Space.Compact size="small">
        <Button size="small" loading={testing} disabled={untestable} onClick={() => on.onTest(channel)}>
          {t('action.test')}
        </Button>
        <Dropdown
          disabled={untestable || testing || models.length === 0}
          trigger={['click']}
          menu={{
            items: models.map((model) => ({ key: model, label: model })),
            onClick: ({ key }) => on.onTest(channel, key),
            className: 'mg-model-menu',
          }}
        >
          <Button size="small" icon={<DownOutlined />} aria-label={t('action.testModel')} />
        </Dropdown>
      </Space.Compact>
      {channel.status === ChannelStatus.Enabled ? (
        <Button type="link" size="small" danger disabled={busy} onClick={() => on.onToggle(channel, ChannelStatus.ManuallyDisabled)}>
          {t('action.disable')}
        </Button>
      ) : (
        <Button type="link" size="small" disabled={busy} onClick={() => on.onToggle(channel, ChannelStatus.Enabled)}>
          {t('action.enable')}
        </Button>
      )}
      <Button type="link" size="small" onClick={() => on.onEdit(channel)}>
        {t('common:action.edit')}
      </Button>
      <Button type="link" size="small" onClick={() => on.onCopy(channel)}>
        {t('common:action.copy')}
      </Button>
      <Popconfirm
        title={t('action.deleteTitle')}
        description={t('action.deleteWarning', { name: channel.name })}
        okText={t('common:action.delete')}
        okButtonProps={{ danger: true }}
        cancelText={t('common:action.cancel')}
        onConfirm={() => on.onDelete(channel)}
      >
        <Button type="link" size="small" danger disabled={busy}>
          {t('common:action.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}

interface TagRowActionsProps {
  tag: string;
  busy: boolean;
  onTagStatus: (tag: string, enabled: boolean) => void;
  onTagEdit: (tag: string) => void;
}

export function TagRowActions({ tag, busy, onTagStatus, onTagEdit }: TagRowActionsProps) {
  const { t } = useTranslation('channel');
  return (
    <Space size={0} wrap className="mg-row-actions">
      <Button type="link" size="small" disabled={busy} onClick={() => onTagStatus(tag, true)}>
        {t('tag.enableAll')}
      </Button>
      <Button type="link" size="small" danger disabled={busy} onClick={() => onTagStatus(tag, false)}>
        {t('tag.disableAll')}
      </Button>
      <Button type="link" size="small" onClick={() => onTagEdit(tag)}>
        {t('tag.edit')}
      </Button>
    </Space>
  );
}
