import { Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { isAdmin } from '../../lib/roles';
import { ClearLogsButton } from './components/clear-logs-button';
import { LogFiltersForm } from './components/log-filters';
import { LogStats } from './components/log-stats';
import { LogTable } from './components/log-table';
import { UserInfoModal } from './components/user-info-modal';
import { useLogPage } from './use-log-page';
import './log.css';

/** Spec screen 11: admins see everyone's calls (with user and channel), users their own. */
export default function LogPage() {
  const { t } = useTranslation('log');
  const { user } = useSession();
  const admin = isAdmin(user);
  const logs = useLogPage(admin);
  const [userId, setUserId] = useState<number | null>(null);

  return (
    <Card title={t('title')} className="mg-page-card" extra={admin ? <ClearLogsButton /> : undefined}>
      <LogFiltersForm admin={admin} initial={logs.filters} loading={logs.list.isFetching} onApply={logs.apply} />
      <LogStats stat={logs.stat.data} loading={logs.stat.isFetching} items={logs.list.data?.items ?? []} />
      <LogTable
        admin={admin}
        items={logs.list.data?.items ?? []}
        loading={logs.list.isFetching}
        page={logs.page}
        pageSize={logs.pageSize}
        total={logs.list.data?.total ?? 0}
        totalCapped={logs.list.data?.total_capped}
        onPageChange={logs.setPage}
        onUser={setUserId}
      />
      <UserInfoModal userId={userId} onClose={() => setUserId(null)} />
    </Card>
  );
}
