import { Image, Table, Tag, Typography, type TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { mjSubmitCodeColor } from '@modelgate/shared';
import { CopyablePrompt, FailReason, TaskDuration, TaskStatusTag } from '../../../components/task-parts';
import dayjs from '../../../lib/dayjs';
import type { MjTaskView } from '../api';
import { ListEmpty } from '../../../components/list-empty';
import { LIST_TABLE_SCROLL } from '../../../lib/table';

/** Spec screen 12 (drawing): admins also see the channel and the user. */
export function MjTable({ admin, items, loading }: { admin: boolean; items: MjTaskView[]; loading: boolean }) {
  const { t } = useTranslation('task');
  const columns: TableProps<MjTaskView>['columns'] = [
    { title: t('column.submitTime'), key: 'submit', render: (_, r) => dayjs(r.submit_time).format('YYYY-MM-DD HH:mm:ss') },
    { title: t('column.duration'), key: 'duration', render: (_, r) => <TaskDuration start={r.submit_time} end={r.finish_time} unit="ms" /> },
    ...(admin
      ? ([
          { title: t('column.channel'), key: 'channel', render: (_, r) => <Tag color="geekblue">{r.channel_id}</Tag> },
          { title: t('column.user'), key: 'user', render: (_, r) => <Tag>{r.user_id}</Tag> },
        ] satisfies TableProps<MjTaskView>['columns'])
      : []),
    { title: t('column.action'), key: 'action', render: (_, r) => <Tag color="blue">{t(`action.${r.action}`, { defaultValue: t('action.unknown') })}</Tag> },
    { title: t('column.mjId'), key: 'mjId', render: (_, r) => <Typography.Text copyable={r.mj_id ? { text: r.mj_id } : false}>{r.mj_id}</Typography.Text> },
    {
      title: t('column.code'),
      key: 'code',
      render: (_, r) => <Tag color={mjSubmitCodeColor(r.code)}>{t(`code.${r.code}`, { defaultValue: t('code.other', { code: r.code }) })}</Tag>,
    },
    { title: t('column.status'), key: 'status', render: (_, r) => <TaskStatusTag status={r.status} /> },
    { title: t('column.progress'), key: 'progress', render: (_, r) => r.progress },
    {
      title: t('column.image'),
      key: 'image',
      render: (_, r) =>
        r.image_url ? (
          <Image src={r.image_url} width={56} height={56} className="mg-task-thumb" alt={t('viewImage')} preview={{ mask: t('viewImage') }} />
        ) : (
          t('noImage')
        ),
    },
    { title: t('column.prompt'), key: 'prompt', render: (_, r) => <CopyablePrompt text={r.prompt} /> },
    { title: t('column.promptEn'), key: 'promptEn', render: (_, r) => <CopyablePrompt text={r.prompt_en} /> },
    { title: t('column.failReason'), key: 'fail', render: (_, r) => <FailReason text={r.fail_reason} /> },
  ];
  return (
    <Table<MjTaskView>
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
