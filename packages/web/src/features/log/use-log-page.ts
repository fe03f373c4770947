import { keepPreviousData, useQuery } from '@tanstack/react-query';
import dayjs from '../../lib/dayjs';
import { useState } from 'react';
import { getPageSize, setPageSize } from '../../lib/storage';
import { fetchLogs, fetchLogStat, logKeys, type LogFilters } from './api';

/** Spec §9 / console-api.md: the window starts today at 00:00 and ends an hour from now. */
export function defaultLogFilters(now = dayjs()): LogFilters {
  return {
    start: now.startOf('day').unix(),
    end: now.add(1, 'hour').unix(),
    tokenName: '',
    modelName: '',
    username: '',
    channel: '',
    group: '',
    type: 0,
  };
}

export function useLogPage(admin: boolean) {
  const [filters, setFilters] = useState<LogFilters>(() => defaultLogFilters());
  const [paging, setPaging] = useState(() => ({ page: 1, pageSize: getPageSize() }));

  const list = useQuery({
    queryKey: logKeys.list(admin, filters, paging.page, paging.pageSize),
    queryFn: () => fetchLogs(filters, admin, paging.page, paging.pageSize),
    placeholderData: keepPreviousData,
  });
  const stat = useQuery({
    queryKey: logKeys.stat(admin, filters),
    queryFn: () => fetchLogStat(filters, admin),
    placeholderData: keepPreviousData,
  });

  return {
    filters,
    list,
    stat,
    page: list.data?.page ?? paging.page,
    pageSize: paging.pageSize,
    apply: (next: LogFilters) => {
      setFilters(next);
      setPaging((old) => ({ ...old, page: 1 }));
    },
    setPage: (page: number, pageSize: number) => {
      if (pageSize !== paging.pageSize) setPageSize(pageSize);
      setPaging({ page: pageSize !== paging.pageSize ? 1 : page, pageSize });
    },
  };
}
