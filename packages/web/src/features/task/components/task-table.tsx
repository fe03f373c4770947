import { Progress, Table, Tag, Typography, type TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { FailReason, TaskDuration, TaskStatusTag } from '../../../components/task-parts';
import dayjs from '../../../lib/dayjs';
import type { AsyncTaskView } from '../api';
import { ListEmpty } from '../../../components/list-empty';
import { LIST_TABLE_SCROLL } from '../../../lib/table';
import { VideoCell } from './video-cell';

/** Spec screen 12 (async tasks): admins also see the channel and the user. */
export function TaskTable({ admin, items, loading }: { admin: boolean; items: AsyncTaskView[]; loading: boolean }) {
  const { t } = useTranslation('task');
  const columns: TableProps<AsyncTaskView>['columns'] = [
    { title: t('column.submitTime'), key: 'submit', render: (_, r) => dayjs.unix(r.submit_time).format('YYYY-MM-DD HH:mm:ss') },
    { title: t('column.finishTime'), key: 'finish', render: (_, r) => (r.finish_time ? dayjs.unix(r.finish_time).format('YYYY-MM-DD HH:mm:ss') : '-') },
    { title: t('column.duration'), key: 'duration', render: (_, r) => <TaskDuration start={r.submit_time} end={r.finish_time} unit="s" /> },
    ...(admin
      ? ([
          { title: t('column.channel'), key: 'channel', render: (_, r) => <Tag color="geekblue">{r.channel_id}</Tag> },
          { title: t('column.user'), key: 'user', render: (_, r) => <Tag>{r.user_id}</Tag> },
        ] satisfies TableProps<AsyncTaskView>['columns'])
      : []),
    { title: t('column.platform'), key: 'platform', render: (_, r) => <Tag color="purple">{t(`platform.${r.platform}`, { defaultValue: t('platform.unknown') })}</Tag> },
    { title: t('column.action'), key: 'action', render: (_, r) => <Tag color="blue">{t(`action.${r.action}`, { defaultValue: t('action.unknown') })}</Tag> },
    { title: t('column.status'), key: 'status', render: (_, r) => <TaskStatusTag status={r.status} /> },
    {
      title: t('column.progress'),
      key: 'progress',
      render: (_, r) => <Progress size="small" className="mg-task-progress" percent={Number.parseInt(r.progress, 10) || 0} status={r.status === 'FAILURE' ? 'exception' : undefined} />,
    },
    // Video tasks (issue 34): what was asked, and the preview once finished.
    ...(items.some((r) => r.video)
      ? ([
          { title: t('column.video'), key: 'video', render: (_, r) => (r.video ? <VideoCell taskId={r.task_id} video={r.video} /> : '-') },
        ] satisfies TableProps<AsyncTaskView>['columns'])
      : []),
    {
      title: t('column.taskId'),
      key: 'taskId',
      // Video ids are 38 characters: two lines in a column wide enough for them, never one character a line.
      render: (_, r) => (
        <Typography.Text className="mg-task-id" copyable={r.task_id ? { text: r.task_id } : false}>
          {r.task_id}
        </Typography.Text>
      ),
    },
    { title: t('column.failReason'), key: 'fail', render: (_, r) => <FailReason text={r.fail_reason} /> },
  ];
  return (
    <Table<AsyncTaskView>
      className="mg-task-table"
      rowKey="id"
      columns={columns}
      dataSource={items}
      loading={loading}
      size="middle"
      pagination={false}
      scroll={LIST_TABLE_SCROLL}
      locale={{ emptyText: <ListEmpty description={t('empty')} /> }}
    />
  );
}
