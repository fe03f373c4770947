import { useQuery } from '@tanstack/react-query';
import { Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { TaskFilters as TaskFiltersForm, type TaskFilterValues } from '../../components/task-filters';
import { ListPager } from '../../components/task-parts';
import '../../components/task-parts.css';
import dayjs from '../../lib/dayjs';
import { isAdmin } from '../../lib/roles';
import { fetchTasks, TASK_PAGE_SIZE, taskKeys, type TaskFilters } from './api';
import { TaskTable } from './components/task-table';

/** Spec §9: the async task list starts at today's midnight, with no end. */
function defaultWindow(): TaskFilterValues {
  return { start: dayjs().startOf('day'), end: null, channel: '', id: '' };
}

const toFilters = (v: TaskFilterValues): TaskFilters => ({ start: v.start ? v.start.unix() : 0, end: v.end ? v.end.unix() : 0, channel: v.channel, taskId: v.id });

/** Async tasks (`/task`, shown when enable_task): admins see every user's tasks with channel and user. */
export default function TaskPage() {
  const { t } = useTranslation('task');
  const admin = isAdmin(useSession().user);
  const [initial] = useState(defaultWindow);
  const [filters, setFilters] = useState<TaskFilters>(() => toFilters(initial));
  const [page, setPage] = useState(0);
  const list = useQuery({ queryKey: taskKeys.list(admin, filters, page), queryFn: () => fetchTasks(admin, filters, page) });
  const items = list.data ?? [];
  return (
    <Card title={t('title.task')} className="mg-page-card">
      <TaskFiltersForm
        admin={admin}
        idLabel={t('filter.taskId')}
        initial={initial}
        loading={list.isFetching}
        onApply={(v) => {
          setFilters(toFilters(v));
          setPage(0);
        }}
      />
      <TaskTable admin={admin} items={items} loading={list.isFetching} />
      <ListPager page={page} full={items.length >= TASK_PAGE_SIZE} onChange={setPage} />
    </Card>
  );
}
