import { formatQuota, meterLeft, type WindowMeter } from '@modelgate/shared';
import { Progress, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../app/status';
import dayjs from '../lib/dayjs';
import './period-limits.css';

function percent(used: number, limit: number): number {
  return limit > 0 ? Math.min(100, Math.round((used / limit) * 1000) / 10) : 0;
}

/** Whose window it is: the user's own, a token's, a plan's. */
function useMeterTitle() {
  const { t } = useTranslation('limits');
  return (m: WindowMeter) => {
    const window = t(`periodLimits.window.${m.window}`);
    if (m.scope === 'plan') return t('meters.plan', { name: m.name, window });
    if (m.scope === 'token') return t('meters.token', { name: m.name, window });
    return t('meters.user', { window });
  };
}

/** One window: used and left of each capped unit, and when it refills. */
function Meter({ m }: { m: WindowMeter }) {
  const { t } = useTranslation('limits');
  const { quotaDisplay } = useStatus();
  const title = useMeterTitle();
  const money = (q: number) => formatQuota(q, quotaDisplay, 2);
  const full = (m.quota_limit > 0 && meterLeft(m, 'quota') <= 0) || (m.requests_limit > 0 && meterLeft(m, 'requests') <= 0);
  return (
    <div className="mg-window-meter" data-testid="window-meter" data-scope={m.scope} data-window={m.window}>
      <div className="mg-window-meter-title">
        <Typography.Text strong>{title(m)}</Typography.Text>
        <Typography.Text type="secondary">{m.refill_at > 0 ? t('meters.refill', { time: dayjs.unix(m.refill_at).format('YYYY-MM-DD HH:mm') }) : t('meters.notOpened')}</Typography.Text>
      </div>
      {m.quota_limit > 0 && (
        <div data-unit="quota">
          <Progress percent={percent(m.quota_used, m.quota_limit)} status={full ? 'exception' : 'normal'} showInfo={false} size="small" />
          <Typography.Text type="secondary">{t('meters.quota', { used: money(m.quota_used), limit: money(m.quota_limit), left: money(meterLeft(m, 'quota')) })}</Typography.Text>
        </div>
      )}
      {m.requests_limit > 0 && (
        <div data-unit="requests">
          <Progress percent={percent(m.requests_used, m.requests_limit)} status={full ? 'exception' : 'normal'} showInfo={false} size="small" />
          <Typography.Text type="secondary">{t('meters.requests', { used: m.requests_used, limit: m.requests_limit, left: meterLeft(m, 'requests') })}</Typography.Text>
        </div>
      )}
    </div>
  );
}

/** The windows of the signed-in user (own limits, plans, tokens) as meters; nothing when there are none. */
export function WindowMeters({ meters }: { meters: readonly WindowMeter[] | undefined }) {
  if (!meters?.length) return null;
  return (
    <div className="mg-window-meters" data-testid="window-meters">
      {meters.map((m) => (
        <Meter key={`${m.scope}-${m.id}-${m.window}`} m={m} />
      ))}
    </div>
  );
}
