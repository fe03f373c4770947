import { formatNumber, formatQuota } from '@modelgate/shared';
import { Card, Col, Row, Statistic } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import type { Aggregated } from '../aggregate';

interface Balance {
  quota: number;
  used_quota: number;
  request_count: number;
}

/** Totals of the range, and the signed-in user's own balance (the reference shows both). */
export function DetailTotals({ totals, self }: { totals: Aggregated['totals']; self: Balance | undefined }) {
  const { t } = useTranslation('detail');
  const { quotaDisplay } = useStatus();
  const items = [
    { key: 'quota', title: t('total.quota'), value: formatQuota(totals.quota, quotaDisplay, 4) },
    { key: 'count', title: t('total.count'), value: formatNumber(totals.count) },
    { key: 'tokens', title: t('total.tokens'), value: formatNumber(totals.tokens) },
    { key: 'balance', title: t('total.balance'), value: self ? formatQuota(self.quota, quotaDisplay) : '-' },
    { key: 'used', title: t('total.used'), value: self ? formatQuota(self.used_quota, quotaDisplay) : '-' },
    { key: 'requests', title: t('total.requests'), value: self ? formatNumber(self.request_count) : '-' },
  ];
  return (
    <Row gutter={[12, 12]} className="mg-detail-totals">
      {items.map((item) => (
        <Col key={item.key} xs={12} md={8} xl={4}>
          <Card size="small" data-total={item.key}>
            <Statistic title={item.title} value={item.value} />
          </Card>
        </Col>
      ))}
    </Row>
  );
}
