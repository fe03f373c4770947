import { KeyOutlined } from '@ant-design/icons';
import { PASSKEYS_PER_USER_MAX } from '@modelgate/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Empty, List, Popconfirm, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import dayjs from '../../lib/dayjs';
import { showSuccess } from '../../lib/feedback';
import { twoFactorKeys } from './api';
import { PasskeyNameModal } from './passkey-name-modal';
import { fetchPasskeys, passkeyKeys, registrationOptions, removePasskey, renamePasskey, savePasskey, type Passkey } from './passkeys-api';
import { createCredential, passkeysSupported, reportPasskeyError } from './webauthn';
import './passkeys.css';

const when = (seconds: number) => dayjs.unix(seconds).format('YYYY-MM-DD HH:mm');

/** Registers a passkey: the server's options, the browser's ceremony, then the answer with its name. */
async function addPasskey(name: string): Promise<Passkey> {
  const options = await registrationOptions();
  return savePasskey(name, await createCredential(options));
}

/**
 * The security card's passkeys (docs/security.md#passkeys): each one registered, its name, when it
 * was added and last used; add, rename, remove. Any passkey counts as the account's second factor.
 */
export function PasskeysSection() {
  const { t } = useTranslation('passkey');
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: passkeyKeys.list, queryFn: fetchPasskeys });
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<Passkey | null>(null);
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: passkeyKeys.list }), queryClient.invalidateQueries({ queryKey: twoFactorKeys.status })]);

  const add = useMutation({
    mutationFn: addPasskey,
    onSuccess: () => {
      setAdding(false);
      showSuccess(t('added'));
      void refresh();
    },
    onError: reportPasskeyError,
  });
  const rename = useMutation({
    mutationFn: ({ id, name }: { id: number; name: string }) => renamePasskey(id, name),
    onSuccess: () => {
      setRenaming(null);
      showSuccess(t('renamed'));
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: removePasskey,
    onSuccess: () => {
      showSuccess(t('removed'));
      void refresh();
    },
  });

  const items = list.data ?? [];
  const full = items.length >= PASSKEYS_PER_USER_MAX;
  return (
    <Space orientation="vertical" size="middle" className="mg-stack" data-testid="passkeys">
      <div>
        <Typography.Title level={5} className="mg-passkeys-title">
          {t('title')}
        </Typography.Title>
        <Typography.Text type="secondary">{t('hint')}</Typography.Text>
      </div>
      {items.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('none')} className="mg-passkeys-empty" />
      ) : (
        <List
          size="small"
          bordered
          dataSource={items}
          loading={list.isLoading}
          renderItem={(p) => (
            <List.Item
              data-testid="passkey-item"
              actions={[
                <Button key="rename" type="link" size="small" onClick={() => setRenaming(p)}>
                  {t('rename')}
                </Button>,
                <Popconfirm
                  key="remove"
                  title={t('removeTitle')}
                  description={t('removeWarning')}
                  okText={t('remove')}
                  okButtonProps={{ danger: true }}
                  cancelText={t('common:action.cancel')}
                  onConfirm={() => remove.mutate(p.id)}
                >
                  <Button type="link" size="small" danger>
                    {t('remove')}
                  </Button>
                </Popconfirm>,
              ]}
            >
              <List.Item.Meta
                avatar={<KeyOutlined aria-hidden className="mg-passkey-icon" />}
                title={
                  <Space size="small" wrap>
                    <Typography.Text strong ellipsis={{ tooltip: p.name }} className="mg-passkey-name">
                      {p.name}
                    </Typography.Text>
                    {p.backed_up && <Tag>{t('synced')}</Tag>}
                  </Space>
                }
                description={
                  <Space size={[12, 0]} wrap>
                    <span>{t('created', { date: when(p.created_at) })}</span>
                    <span>{p.last_used_at > 0 ? t('lastUsed', { date: when(p.last_used_at) }) : t('neverUsed')}</span>
                  </Space>
                }
              />
            </List.Item>
          )}
        />
      )}
      <Space wrap>
        <Button icon={<KeyOutlined aria-hidden />} disabled={!passkeysSupported() || full || !list.data} loading={add.isPending} onClick={() => setAdding(true)}>
          {t('add')}
        </Button>
        {full && <Typography.Text type="secondary">{t('limit', { max: PASSKEYS_PER_USER_MAX })}</Typography.Text>}
      </Space>
      <PasskeyNameModal
        open={adding}
        title={t('addTitle')}
        hint={t('addHint')}
        initialName={t('defaultName', { n: items.length + 1 })}
        okText={t('continue')}
        loading={add.isPending}
        onSubmit={(name) => add.mutate(name)}
        onCancel={() => setAdding(false)}
      />
      <PasskeyNameModal
        open={renaming !== null}
        title={t('renameTitle')}
        initialName={renaming?.name ?? ''}
        okText={t('rename')}
        loading={rename.isPending}
        onSubmit={(name) => renaming && rename.mutate({ id: renaming.id, name })}
        onCancel={() => setRenaming(null)}
      />
    </Space>
  );
}
