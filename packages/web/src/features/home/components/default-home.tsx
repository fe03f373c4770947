import { Card, Descriptions, Space, Tag, Typography } from 'antd';
import dayjs from '../../../lib/dayjs';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../../components/link-button';
import { useSession } from '../../../app/session';
import { useStatus } from '../../../app/status';

/** Shown while the admin has not set HomePageContent: what this deployment is and how to sign in. */
export function DefaultHome() {
  const { t } = useTranslation('home');
  const { status } = useStatus();
  const { user } = useSession();
  const name = status.system_name || 'ModelGate';

  const on = (flag: unknown) =>
    flag === true ? <Tag color="success">{t('enabled')}</Tag> : <Tag>{t('disabled')}</Tag>;

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
          <Descriptions.Item label={t('emailVerification')}>{on(status.email_verification)}</Descriptions.Item>
          <Descriptions.Item label={t('githubOAuth')}>{on(status.github_oauth)}</Descriptions.Item>
          <Descriptions.Item label={t('linuxdoOAuth')}>{on(status.linuxdo_oauth)}</Descriptions.Item>
          <Descriptions.Item label={t('wechatLogin')}>{on(status.wechat_login)}</Descriptions.Item>
          <Descriptions.Item label={t('telegramOAuth')}>{on(status.telegram_oauth)}</Descriptions.Item>
          <Descriptions.Item label={t('turnstile')}>{on(status.turnstile_check)}</Descriptions.Item>
        </Descriptions>
      </Card>
    </Space>
  );
}
