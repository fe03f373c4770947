import { DiscordOutlined, GithubOutlined, KeyOutlined, LoginOutlined, MailOutlined, SendOutlined, WechatOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Modal, Skeleton, Space, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { modal, showSuccess } from '../../../lib/feedback';
import { startOAuth, telegramBind, unbindOAuth, wechatBind, type OAuthProvider } from '../../oauth/api';
import { TelegramWidget } from '../../oauth/components/telegram-widget';
import { WeChatModal } from '../../oauth/components/wechat-modal';
import { settingKeys, type SelfUser } from '../api';
import { EmailBindModal } from './email-bind-modal';

type Dialog = 'email' | 'wechat' | 'telegram' | null;

interface Row {
  key: string;
  icon: ReactNode;
  value: string;
  action: () => void;
  /** Redirect-flow providers can be removed here (the server refuses the account's only way in). */
  provider?: OAuthProvider;
}

/** Personal settings' bindings (spec §2): each method the site offers, what is bound, bind or rebind. */
export function BindingsCard({ user }: { user: SelfUser | undefined }) {
  const { t } = useTranslation('setting');
  const { status } = useStatus();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<Dialog>(null);
  const refresh = () => {
    setDialog(null);
    void queryClient.invalidateQueries({ queryKey: settingKeys.self });
  };
  const redirect = (type: OAuthProvider) => () => void startOAuth(type).catch(() => undefined);
  const remove = (type: OAuthProvider) =>
    // The app's modal instance (theme, locale, the console's button settings), not antd's static one.
    modal().confirm({
      title: t('bindings.removeTitle', { method: t(`bindings.method.${type}`) }),
      content: t('bindings.removeBody'),
      okText: t('bindings.remove'),
      okButtonProps: { danger: true },
      onOk: async () => {
        await unbindOAuth(type);
        showSuccess(t('bindings.removed'));
        refresh();
      },
    });

  if (!user) {
    return (
      <Card title={t('bindings.title')}>
        <Skeleton active paragraph={{ rows: 3 }} />
      </Card>
    );
  }
  const rows: Row[] = [{ key: 'email', icon: <MailOutlined />, value: user.email, action: () => setDialog('email') }];
  if (status.github_oauth) rows.push({ key: 'github', icon: <GithubOutlined />, value: user.github_id, action: redirect('github'), provider: 'github' });
  if (status.linuxdo_oauth) rows.push({ key: 'linuxdo', icon: <LoginOutlined />, value: user.linux_do_id, action: redirect('linuxdo'), provider: 'linuxdo' });
  if (status.oidc_enabled) rows.push({ key: 'oidc', icon: <KeyOutlined />, value: user.oidc_id, action: redirect('oidc'), provider: 'oidc' });
  if (status.discord_oauth) rows.push({ key: 'discord', icon: <DiscordOutlined />, value: user.discord_id, action: redirect('discord'), provider: 'discord' });
  if (status.wechat_login) rows.push({ key: 'wechat', icon: <WechatOutlined />, value: user.wechat_id, action: () => setDialog('wechat') });
  if (status.telegram_oauth && status.telegram_bot_name) rows.push({ key: 'telegram', icon: <SendOutlined />, value: user.telegram_id, action: () => setDialog('telegram') });

  return (
    <Card title={t('bindings.title')}>
      <div className="mg-bindings">
        {rows.map((row) => (
          <div key={row.key} className="mg-binding-row" data-testid={`binding-${row.key}`}>
            <span className="mg-binding-icon" aria-hidden>
              {row.icon}
            </span>
            <div className="mg-binding-text">
              <Typography.Text strong>{t(`bindings.method.${row.key}`)}</Typography.Text>
              <Typography.Text type={row.value ? undefined : 'secondary'} ellipsis className="mg-binding-value">
                {row.value || t('bindings.none')}
              </Typography.Text>
            </div>
            <Space size={4}>
              <Button size="small" onClick={row.action}>
                {row.value ? t('bindings.rebind') : t('bindings.bind')}
              </Button>
              {row.provider && row.value && (
                <Button size="small" danger onClick={() => remove(row.provider!)}>
                  {t('bindings.remove')}
                </Button>
              )}
            </Space>
          </div>
        ))}
      </div>
      <EmailBindModal open={dialog === 'email'} onClose={() => setDialog(null)} onBound={refresh} />
      <WeChatModal
        open={dialog === 'wechat'}
        qrcode={status.wechat_qrcode ?? ''}
        onCancel={() => setDialog(null)}
        onSubmit={async (code) => {
          await wechatBind(code);
          showSuccess(t('bindings.wechatBound'));
          refresh();
        }}
      />
      <Modal open={dialog === 'telegram'} title={t('bindings.method.telegram')} onCancel={() => setDialog(null)} footer={null} destroyOnHidden centered>
        {dialog === 'telegram' && (
          <TelegramWidget
            botName={status.telegram_bot_name ?? ''}
            onAuth={(auth) =>
              void telegramBind(auth).then(() => {
                showSuccess(t('bindings.telegramBound'));
                refresh();
              }, () => undefined)
            }
          />
        )}
      </Modal>
    </Card>
  );
}
