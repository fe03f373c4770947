import { Alert, Button, Card, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { AuditFiltersForm } from './components/audit-filters';
import { AuditTable } from './components/audit-table';
import { useAuditPage } from './use-audit-page';
import './audit.css';

/** The audit log (super admin only): every admin and root change, newest first. */
export default function AuditPage() {
  const { t } = useTranslation('audit');
  const audit = useAuditPage();
  const { list } = audit;
  return (
    <Card title={t('title')} className="mg-page-card">
      <Typography.Paragraph type="secondary" className="mg-audit-hint">
        {t('hint')}
      </Typography.Paragraph>
      <AuditFiltersForm initial={audit.filters} loading={list.isFetching} onApply={audit.apply} />
      {list.isError && (
        <Alert
          type="error"
          showIcon
          className="mg-audit-alert"
          title={t('loadFailed', { message: list.error.message })}
          action={
            <Button size="small" onClick={() => void list.refetch()}>
              {t('retry')}
            </Button>
          }
        />
      )}
      <AuditTable
        items={list.data?.items ?? []}
        loading={list.isFetching}
        page={audit.page}
        pageSize={audit.pageSize}
        total={list.data?.total ?? 0}
        onPageChange={audit.setPage}
      />
    </Card>
  );
}
