import { parseLogOther } from '@modelgate/shared';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { LogEntry } from '../api';

/** Who paid a request, for a user with plans (the log's `other.billing_source`): the plan by name, or the balance past it. */
export function PaidBy({ entry }: { entry: LogEntry }) {
  const { t } = useTranslation('log');
  const other = parseLogOther(entry.other);
  if (other.billing_source === 'plan') {
    return (
      <Tag color="purple" className="mg-log-wrap" data-testid="log-paid-by">
        {t('column.paidByPlan', { name: typeof other.plan_name === 'string' ? other.plan_name : '' })}
      </Tag>
    );
  }
  if (other.billing_source === 'wallet') {
    return <Tag data-testid="log-paid-by">{t('column.paidByWallet')}</Tag>;
  }
  return null;
}
