import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { getPageSize, setPageSize } from '../../lib/storage';
import { auditKeys, EMPTY_AUDIT_FILTERS, fetchAudit, type AuditFilters } from './api';

/** The audit screen's filters and paging; newest entries first, every time unless a range is chosen. */
export function useAuditPage() {
  const [filters, setFilters] = useState<AuditFilters>(EMPTY_AUDIT_FILTERS);
  const [paging, setPaging] = useState(() => ({ page: 1, pageSize: getPageSize() }));
  const list = useQuery({
    queryKey: auditKeys.list(filters, paging.page, paging.pageSize),
    queryFn: () => fetchAudit(filters, paging.page, paging.pageSize),
    placeholderData: keepPreviousData,
  });
  return {
    filters,
    list,
    page: list.data?.page ?? paging.page,
    pageSize: paging.pageSize,
    apply: (next: AuditFilters) => {
      setFilters(next);
      setPaging((old) => ({ ...old, page: 1 }));
    },
    setPage: (page: number, pageSize: number) => {
      if (pageSize !== paging.pageSize) setPageSize(pageSize);
      setPaging({ page: pageSize !== paging.pageSize ? 1 : page, pageSize });
    },
  };
}
