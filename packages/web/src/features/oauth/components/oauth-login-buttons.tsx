import { DiscordOutlined, GithubOutlined, KeyOutlined, LoginOutlined, WechatOutlined } from '@ant-design/icons';
import { Button, Divider, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { SessionUser, TwoFactorChallenge } from '@modelgate/shared/api';
import { isChallenge } from '../../two-factor/api';
import { useStatus } from '../../../app/status';
import { useSession } from '../../../app/session';
import { showSuccess } from '../../../lib/feedback';
import { startOAuth, telegramLogin, wechatLogin, type OAuthProvider } from '../api';
import { TelegramWidget } from './telegram-widget';
import { WeChatModal } from './wechat-modal';

/** The login screen's other sign-in methods (spec §2): exactly those the administrator enabled. */
/** Loaded by the login page only when a method is on (lazy: keeps the sign-in bundle within its budget). */
export default function OAuthLoginButtons() {
  const { t } = useTranslation('auth');
  const { status } = useStatus();
  const { signIn } = useSession();
  const navigate = useNavigate();
  const [wechatOpen, setWechatOpen] = useState(false);
  const [pending, setPending] = useState<OAuthProvider | null>(null);

  const redirect: Array<{ type: OAuthProvider; on: boolean; icon: React.ReactNode }> = [
    { type: 'github', on: status.github_oauth === true, icon: <GithubOutlined /> },
    { type: 'linuxdo', on: status.linuxdo_oauth === true, icon: <LoginOutlined /> },
    { type: 'oidc', on: status.oidc_enabled === true, icon: <KeyOutlined /> },
    { type: 'discord', on: status.discord_oauth === true, icon: <DiscordOutlined /> },
  ];
  const shown = redirect.filter((r) => r.on);
  const wechat = status.wechat_login === true;
  const telegram = status.telegram_oauth === true && !!status.telegram_bot_name;
  if (!shown.length && !wechat && !telegram) return null;

  const done = (user: SessionUser | TwoFactorChallenge, to: string) => {
    if (isChallenge(user)) {
      // Two-factor on: the second-step screen takes the code before any session.
      void navigate('/login/2fa', { state: { flowToken: user.flow_token } });
      return;
    }
    signIn(user);
    showSuccess(t('login.success'));
    void navigate(to);
  };
  const go = (type: OAuthProvider) => {
    setPending(type);
    startOAuth(type).catch(() => setPending(null));
  };

  return (
    <div className="mg-oauth-buttons">
      <Divider plain>{t('oauth.or')}</Divider>
      <Space orientation="vertical" className="mg-stack">
        {shown.map((r) => (
          <Button key={r.type} block icon={r.icon} loading={pending === r.type} onClick={() => go(r.type)}>
            {t(`oauth.with.${r.type}`)}
          </Button>
        ))}
        {wechat && (
          <Button block icon={<WechatOutlined />} onClick={() => setWechatOpen(true)}>
            {t('oauth.with.wechat')}
          </Button>
        )}
        {telegram && <TelegramWidget botName={status.telegram_bot_name ?? ''} onAuth={(auth) => void telegramLogin(auth).then((u) => done(u, '/token'), () => undefined)} />}
      </Space>
      <WeChatModal
        open={wechatOpen}
        qrcode={status.wechat_qrcode ?? ''}
        onCancel={() => setWechatOpen(false)}
        onSubmit={async (code) => done(await wechatLogin(code), '/token')}
      />
    </div>
  );
}
