import { useQuery } from '@tanstack/react-query';
import { Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { TaskFilters, type TaskFilterValues } from '../../components/task-filters';
import { ListPager } from '../../components/task-parts';
import '../../components/task-parts.css';
import dayjs from '../../lib/dayjs';
import { isAdmin } from '../../lib/roles';
import { fetchMjTasks, MJ_PAGE_SIZE, mjKeys, type MjFilters } from './api';
import { MjTable } from './components/mj-table';

/** Spec §9: the drawing list shows the last 30 days up to an hour from now. */
function defaultWindow(): TaskFilterValues {
  return { start: dayjs().subtract(30, 'day'), end: dayjs().add(1, 'hour'), channel: '', id: '' };
}

const toFilters = (v: TaskFilterValues): MjFilters => ({ start: v.start ? v.start.valueOf() : 0, end: v.end ? v.end.valueOf() : 0, channel: v.channel, mjId: v.id });

/** Drawing tasks (`/midjourney`, shown when enable_drawing): admins see every user's tasks with channel and user. */
export default function MidjourneyPage() {
  const { t } = useTranslation('task');
  const admin = isAdmin(useSession().user);
  const [initial] = useState(defaultWindow);
  const [filters, setFilters] = useState<MjFilters>(() => toFilters(initial));
  const [page, setPage] = useState(0);
  const list = useQuery({ queryKey: mjKeys.list(admin, filters, page), queryFn: () => fetchMjTasks(admin, filters, page) });
  const items = list.data ?? [];
  return (
    <Card title={t('title.midjourney')} className="mg-page-card">
      <TaskFilters
        admin={admin}
        idLabel={t('filter.mjId')}
        initial={initial}
        loading={list.isFetching}
        onApply={(v) => {
          setFilters(toFilters(v));
          setPage(0);
        }}
      />
      <MjTable admin={admin} items={items} loading={list.isFetching} />
      <ListPager page={page} full={items.length >= MJ_PAGE_SIZE} onChange={setPage} />
    </Card>
  );
}
