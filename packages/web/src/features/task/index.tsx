import { useQuery } from '@tanstack/react-query';
import { Alert, Card } from 'antd';
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
import { VideoSubmitButton } from './components/video-submit';
import './task.css';

const REFRESH_MS = 3000;

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
  // While a task of the page is unfinished, the list follows it (the server polls the upstreams).
  const list = useQuery({
    queryKey: taskKeys.list(admin, filters, page),
    queryFn: () => fetchTasks(admin, filters, page),
    refetchInterval: (q) => ((q.state.data ?? []).some((r) => r.progress !== '100%' && r.platform === 'video') ? REFRESH_MS : false),
  });
  const items = list.data ?? [];
  const following = items.some((r) => r.progress !== '100%' && r.platform === 'video');
  return (
    <Card title={t('title.task')} className="mg-page-card" extra={<VideoSubmitButton onSubmitted={() => void list.refetch()} />}>
      {following && <Alert className="mg-task-toolbar" type="info" showIcon title={t('video.autoRefresh')} />}
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
