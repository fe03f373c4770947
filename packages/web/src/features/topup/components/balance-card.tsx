import { LinkOutlined, WalletOutlined } from '@ant-design/icons';
import { formatNumber, formatQuota } from '@modelgate/shared';
import { Button, Card, Col, Row, Skeleton, Space, Statistic, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { showError } from '../../../lib/feedback';
import type { SelfUser } from '../api';

/** The balance in the site's display unit, and the "buy a code" link the super admin may set (spec §6). */
export function BalanceCard({ user }: { user: SelfUser | undefined }) {
  const { t } = useTranslation('topup');
  const { status, quotaDisplay } = useStatus();
  const link = typeof status.top_up_link === 'string' ? status.top_up_link : '';

  const openLink = () => {
    if (!link) {
      showError(t('balance.linkUnset'));
      return;
    }
    window.open(link, '_blank', 'noopener,noreferrer');
  };

  return (
    <Card title={t('balance.title')}>
      {!user ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : (
        <Space orientation="vertical" size="large" className="mg-stack">
          <Row gutter={[16, 16]}>
            <Col xs={24} sm={10}>
              <Statistic title={t('balance.current')} value={formatQuota(user.quota, quotaDisplay)} prefix={<WalletOutlined aria-hidden />} data-testid="wallet-balance" />
            </Col>
            <Col xs={12} sm={7}>
              <Statistic title={t('balance.used')} value={formatQuota(user.used_quota, quotaDisplay)} />
            </Col>
            <Col xs={12} sm={7}>
              <Statistic title={t('balance.requests')} value={formatNumber(user.request_count ?? 0)} />
            </Col>
          </Row>
          <Space wrap align="center">
            <Button icon={<LinkOutlined aria-hidden />} onClick={openLink}>
              {t('balance.buyCode')}
            </Button>
            <Typography.Text type="secondary">{t('balance.buyCodeHint')}</Typography.Text>
          </Space>
        </Space>
      )}
    </Card>
  );
}
