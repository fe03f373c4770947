import { UserOutlined } from '@ant-design/icons';
import { Avatar, Card, Col, Row, Skeleton, Space, Statistic, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { RoleTag } from '../../../components/user-tags';
import { formatNumber, formatQuota } from '@modelgate/shared';
import type { SelfUser } from '../api';

export function AccountCard({ user }: { user: SelfUser | undefined }) {
  const { t } = useTranslation('setting');
  const { quotaDisplay } = useStatus();
  return (
    <Card title={t('account.title')}>
      {!user ? (
        <Skeleton active avatar paragraph={{ rows: 2 }} />
      ) : (
        <Space orientation="vertical" size="large" className="mg-stack">
          <Space size="middle" align="center">
            <Avatar size={56} icon={<UserOutlined aria-hidden />} />
            <div>
              <Typography.Title level={4} className="mg-flush" data-testid="account-username">
                {user.display_name || user.username}
              </Typography.Title>
              <Space size={4} wrap>
                <Typography.Text type="secondary">{user.username}</Typography.Text>
                <RoleTag role={user.role} />
                <Tag>{t('account.groupValue', { group: user.group || 'default' })}</Tag>
              </Space>
            </div>
          </Space>
          <Row gutter={[16, 16]}>
            <Col xs={12} sm={8}>
              <Statistic title={t('account.balance')} value={formatQuota(user.quota, quotaDisplay)} />
            </Col>
            <Col xs={12} sm={8}>
              <Statistic title={t('account.used')} value={formatQuota(user.used_quota, quotaDisplay)} />
            </Col>
            <Col xs={12} sm={8}>
              <Statistic title={t('account.requests')} value={formatNumber(user.request_count ?? 0)} />
            </Col>
          </Row>
        </Space>
      )}
    </Card>
  );
}
