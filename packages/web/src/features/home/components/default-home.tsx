import { Card, Descriptions, Space, Tag, Typography } from 'antd';
import dayjs from '../../../lib/dayjs';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../../components/link-button';
import { useSession } from '../../../app/session';
import { useStatus } from '../../../app/status';
import type { StoredStatus } from '../../../lib/storage';

/** Label keys of what `/api/status` says is switched on; anything off is not advertised at all. */
function signInMethods(status: StoredStatus): string[] {
  const on: Array<[unknown, string]> = [
    [status.github_oauth, 'githubOAuth'],
    [status.linuxdo_oauth, 'linuxdoOAuth'],
    [status.oidc_enabled, 'oidcLogin'],
    [status.wechat_login, 'wechatLogin'],
    [status.telegram_oauth, 'telegramOAuth'],
  ];
  return ['passwordSignIn', ...on.filter(([flag]) => flag === true).map(([, key]) => key)];
}

function features(status: StoredStatus): string[] {
  const on: Array<[unknown, string]> = [
    [true, 'featurePlayground'],
    [status.enable_online_topup, 'featureTopup'],
    [status.enable_drawing, 'featureDrawing'],
    [status.enable_task, 'featureTask'],
    [status.enable_data_export, 'featureDashboard'],
    [!!status.chat_link || (Array.isArray(status.chats) && status.chats.length > 0), 'featureChat'],
    [status.email_verification, 'featureEmail'],
    [status.turnstile_check, 'featureTurnstile'],
  ];
  return on.filter(([flag]) => flag === true).map(([, key]) => key);
}

/** Shown while the admin has not set HomePageContent: what this deployment offers and how to sign in. */
export function DefaultHome() {
  const { t } = useTranslation('home');
  const { status } = useStatus();
  const { user } = useSession();
  const name = status.system_name || 'ModelGate';
  const tags = (keys: string[]) => (
    <Space size={[4, 4]} wrap>
      {keys.map((key) => (
        <Tag key={key} color="blue">
          {t(key)}
        </Tag>
      ))}
    </Space>
  );

  return (
    <Space orientation="vertical" size="large" className="mg-stack">
      <Card>
        <Typography.Title level={2} className="mg-flush-top">
          {t('welcomeTitle', { name })}
        </Typography.Title>
        <Typography.Paragraph type="secondary">{t('welcomeText')}</Typography.Paragraph>
        <Space wrap>
          <LinkButton to="/token" type="primary">
            {t('openConsole')}
          </LinkButton>
          {!user && <LinkButton to="/register">{t('common:auth.register')}</LinkButton>}
        </Space>
      </Card>
      <Card title={t('systemInfo')}>
        <Descriptions column={{ xs: 1, sm: 1, md: 2 }} bordered size="small">
          <Descriptions.Item label={t('version')}>{status.version || t('unknown')}</Descriptions.Item>
          <Descriptions.Item label={t('startTime')}>
            {status.start_time ? dayjs.unix(status.start_time).format('YYYY-MM-DD HH:mm:ss') : t('unknown')}
          </Descriptions.Item>
          <Descriptions.Item label={t('signIn')}>{tags(signInMethods(status))}</Descriptions.Item>
          <Descriptions.Item label={t('features')}>{tags(features(status))}</Descriptions.Item>
        </Descriptions>
      </Card>
    </Space>
  );
}
