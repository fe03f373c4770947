import { CopyOutlined, LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Button, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { SLOW_TASK_SECONDS, taskStatusColor } from '@modelgate/shared';
import { copyText } from '../lib/clipboard';

/**
 * Pieces the drawing (`/midjourney`) and async task (`/task`) lists share: the duration tag (spec §9:
 * red above a minute), the status tag, a copyable prompt, and the list-style pager (no total: a full
 * page means there may be another).
 */

/** `unit`: the drawing list keeps milliseconds, the task list seconds. */
export function TaskDuration({ start, end, unit }: { start: number; end: number; unit: 'ms' | 's' }) {
  const { t } = useTranslation('task');
  if (!start || !end || end < start) return <Tag>{t('unfinished')}</Tag>;
  const seconds = (end - start) / (unit === 'ms' ? 1000 : 1);
  return (
    <Tag color={seconds > SLOW_TASK_SECONDS ? 'red' : 'green'} data-testid="task-duration">
      {t('seconds', { value: seconds.toFixed(1) })}
    </Tag>
  );
}

export function TaskStatusTag({ status }: { status: string }) {
  const { t } = useTranslation('task');
  const key = status || 'SUBMITTING';
  return <Tag color={taskStatusColor(status)}>{t(`status.${key}`, { defaultValue: status || t('status.UNKNOWN') })}</Tag>;
}

export function CopyablePrompt({ text }: { text: string }) {
  const { t } = useTranslation('task');
  if (!text) return null;
  return (
    <Space size={4} align="start" className="mg-task-prompt">
      <Typography.Paragraph className="mg-task-prompt-text" ellipsis={{ rows: 2, tooltip: text }}>
        {text}
      </Typography.Paragraph>
      <Button size="small" type="text" aria-label={t('copy')} icon={<CopyOutlined aria-hidden />} onClick={() => void copyText(text, t('copied'))} />
    </Space>
  );
}

export function FailReason({ text }: { text: string }) {
  if (!text) return null;
  return (
    <Typography.Paragraph type="danger" className="mg-task-fail" ellipsis={{ rows: 2, tooltip: text }}>
      {text}
    </Typography.Paragraph>
  );
}

/** List style paging (console-api.md §4): `p` from 0; a page as long as the page size may have a next one. */
export function ListPager({ page, full, onChange }: { page: number; full: boolean; onChange: (page: number) => void }) {
  const { t } = useTranslation('task');
  return (
    <Space className="mg-task-pager">
      <Button icon={<LeftOutlined aria-hidden />} disabled={page === 0} onClick={() => onChange(page - 1)}>
        {t('previous')}
      </Button>
      <span>{t('pageLabel', { page: page + 1 })}</span>
      <Button icon={<RightOutlined aria-hidden />} disabled={!full} onClick={() => onChange(page + 1)}>
        {t('loadMore')}
      </Button>
    </Space>
  );
}
