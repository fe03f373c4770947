import { Space, Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { formatNumber, formatQuota } from '@modelgate/shared';
import type { LogEntry, LogStat } from '../api';

interface LogStatsProps {
  stat: LogStat | undefined;
  loading: boolean;
  items: LogEntry[];
}

/**
 * Summary badges over the filter: quota, RPM and TPM from the stat call, plus token sums for the
 * rows on this page unless the operator turned DisplayTokenStatEnabled off.
 */
export function LogStats({ stat, loading, items }: LogStatsProps) {
  const { t } = useTranslation('log');
  const { quotaDisplay, status } = useStatus();
  const prompt = items.reduce((sum, item) => sum + (item.prompt_tokens || 0), 0);
  const completion = items.reduce((sum, item) => sum + (item.completion_tokens || 0), 0);
  const value = (text: string) => (loading && !stat ? '…' : text);
  return (
    <Space wrap size={[8, 8]} className="mg-log-stats" data-testid="log-stats">
      <Tag color="blue" className="mg-stat-tag">
        {t('stat.quota', { value: value(formatQuota(stat?.quota ?? 0, quotaDisplay, 4)) })}
      </Tag>
      <Tooltip title={t('stat.rpmHint')}>
        <Tag color="pink" className="mg-stat-tag">
          {t('stat.rpm', { value: value(String(stat?.rpm ?? 0)) })}
        </Tag>
      </Tooltip>
      <Tooltip title={t('stat.tpmHint')}>
        <Tag className="mg-stat-tag">
          {t('stat.tpm', { value: value(formatNumber(stat?.tpm ?? 0)) })}
        </Tag>
      </Tooltip>
      {status.display_token_stat !== false && (
        <Tooltip title={t('stat.tokensHint')}>
          <Tag className="mg-stat-tag">{t('stat.tokens', { prompt: formatNumber(prompt), completion: formatNumber(completion) })}</Tag>
        </Tooltip>
      )}
    </Space>
  );
}
