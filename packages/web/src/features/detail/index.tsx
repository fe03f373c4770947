import { formatNumber, formatQuota } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Empty, Row, theme } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { useStatus } from '../../app/status';
import dayjs from '../../lib/dayjs';
import { isAdmin } from '../../lib/roles';
import { aggregate, asGranularity, type Metric } from './aggregate';
import { detailKeys, fetchData, fetchSelf, type DataQuery } from './api';
import { shareOption, timeSeriesOption, type ChartColors } from './chart-options';
import { DetailFilters } from './components/detail-filters';
import { DetailTotals } from './components/detail-totals';
import { EChart } from './echart';
import { WindowMeters } from '../../components/window-meters';
import './detail.css';

function initialQuery(defaultTime: unknown): DataQuery {
  return { start: dayjs().subtract(6, 'day').startOf('day').unix(), end: dayjs().add(1, 'hour').unix(), username: '', granularity: asGranularity(defaultTime) };
}

/** The data dashboard (`/detail`, console-api.md §5): usage over time per model from quota_data. */
export default function DetailPage() {
  const { t } = useTranslation('detail');
  const { user } = useSession();
  const { status, quotaDisplay } = useStatus();
  const { token } = theme.useToken();
  const admin = isAdmin(user);
  const [query, setQuery] = useState(() => initialQuery(status.data_export_default_time));
  const data = useQuery({ queryKey: detailKeys.data(admin, query), queryFn: () => fetchData(admin, query) });
  const self = useQuery({ queryKey: detailKeys.self, queryFn: fetchSelf });
  const agg = useMemo(() => aggregate(data.data ?? [], query.granularity), [data.data, query.granularity]);
  const colors: ChartColors = { text: token.colorText, secondary: token.colorTextSecondary, border: token.colorBorderSecondary, background: token.colorBgElevated };
  const asAmount = (v: number) => formatQuota(v, quotaDisplay, 4);
  const charts: Array<{ metric: Metric; title: string; format: (v: number) => string }> = [
    { metric: 'quota', title: t('chart.quota'), format: asAmount },
    { metric: 'count', title: t('chart.count'), format: formatNumber },
    { metric: 'tokens', title: t('chart.tokens'), format: formatNumber },
  ];
  const exportOff = status.enable_data_export === false;

  return (
    <Card title={t('title')} className="mg-page-card">
      {exportOff && <Alert type="warning" showIcon className="mg-detail-alert" title={t('exportOff')} />}
      <DetailFilters admin={admin} initial={query} loading={data.isFetching} onApply={setQuery} onGranularity={(granularity) => setQuery((q) => ({ ...q, granularity }))} />
      <DetailTotals totals={agg.totals} self={self.data} />
      {/* The user's windows now (own limits and plans), as on the wallet. */}
      {!!self.data?.windows.length && (
        <Card size="small" title={t('limits:meters.title')} className="mg-detail-meters">
          <WindowMeters meters={self.data.windows} />
        </Card>
      )}
      {agg.buckets.length === 0 && !data.isPending ? (
        <Empty className="mg-detail-empty" description={t('empty')} />
      ) : (
        <Row gutter={[16, 16]}>
          {charts.map((c) => (
            <Col key={c.metric} xs={24} xl={12}>
              <Card size="small" title={c.title} data-chart={c.metric}>
                <EChart label={c.title} height={300} option={timeSeriesOption(agg, c.metric, query.granularity, colors, c.format, t('chart.other'))} />
              </Card>
            </Col>
          ))}
          <Col xs={24} xl={12}>
            <Card size="small" title={t('chart.share')} data-chart="share">
              <EChart label={t('chart.share')} height={300} option={shareOption(agg, colors, asAmount)} />
            </Card>
          </Col>
        </Row>
      )}
    </Card>
  );
}
