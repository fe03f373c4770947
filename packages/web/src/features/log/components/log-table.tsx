import type { ReactNode } from 'react';
import { Button, Table, Tag, Tooltip, Typography, type TableProps } from 'antd';
import dayjs from '../../../lib/dayjs';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { GroupTag } from '../../../components/user-tags';
import { formatQuota, isConsumeLog, logTypeColor, parseLogOther, usedChannels } from '@modelgate/shared';
import { listPagination } from '../../../lib/pagination';
import type { LogEntry } from '../api';
import { localizeLogContent, withExactRatios } from '../log-content';
import { frtTone, useTimeTone } from '../log-other';
import { LogDetail } from './log-detail';
import { PaidBy } from './paid-by';
import { ListEmpty } from '../../../components/list-empty';
import { LIST_TABLE_SCROLL } from '../../../lib/table';

interface LogTableProps {
  admin: boolean;
  items: LogEntry[];
  loading: boolean;
  page: number;
  pageSize: number;
  total: number;
  /** The server counted up to a cap: the total is "more than". */
  totalCapped?: boolean;
  onPageChange: (page: number, pageSize: number) => void;
  onUser: (id: number) => void;
}

function UseTime({ entry }: { entry: LogEntry }) {
  const { t } = useTranslation('log');
  const other = parseLogOther(entry.other);
  const frt = typeof other.frt === 'number' && other.frt > 0 ? other.frt : 0;
  return (
    <div className="mg-tag-stack mg-use-time">
      <Tag color={useTimeTone(entry.use_time)} data-testid="use-time">
        {t('column.seconds', { value: entry.use_time })}
      </Tag>
      {entry.is_stream && frt > 0 && (
        <Tooltip title={t('column.frtHint')}>
          <Tag color={frtTone(frt)} data-testid="frt">
            {frt < 1000 ? t('column.frtMs', { value: frt }) : t('column.frtValue', { value: (frt / 1000).toFixed(1) })}
          </Tag>
        </Tooltip>
      )}
      <Tag color={entry.is_stream ? 'blue' : 'default'}>{entry.is_stream ? t('column.stream') : t('column.nonStream')}</Tag>
    </div>
  );
}

export function LogTable(props: LogTableProps) {
  const { t, i18n } = useTranslation('log');
  const { quotaDisplay } = useStatus();
  const consumeOnly = (render: (entry: LogEntry) => ReactNode) => (_: unknown, entry: LogEntry) =>
    isConsumeLog(entry.type) ? render(entry) : null;

  const columns: TableProps<LogEntry>['columns'] = [
    {
      title: t('column.time'),
      dataIndex: 'created_at',
      // Date over time: two lines keep the twelve admin columns inside 1366 px.
      render: (value: number) => (
        <span className="mg-log-time">
          <span>{dayjs.unix(value).format('YYYY-MM-DD')}</span> <span>{dayjs.unix(value).format('HH:mm:ss')}</span>
        </span>
      ),
    },
    ...(props.admin
      ? ([
          {
            title: t('column.channel'),
            key: 'channel',
            render: consumeOnly((entry) => {
              const chain = usedChannels(parseLogOther(entry.other));
              return (
                <Tooltip title={chain.length > 1 ? t('column.retryChain', { chain: chain.join(' → ') }) : undefined}>
                  <Tag color="geekblue">{entry.channel}</Tag>
                </Tooltip>
              );
            }),
          },
          {
            title: t('column.user'),
            key: 'user',
            render: (_, entry) =>
              entry.user_id ? (
                <Button type="link" size="small" className="mg-flush mg-log-user" onClick={() => props.onUser(entry.user_id)}>
                  {entry.username || entry.user_id}
                </Button>
              ) : (
                <span className="mg-log-user">{entry.username}</span>
              ),
          },
        ] satisfies TableProps<LogEntry>['columns'])
      : []),
    { title: t('column.token'), key: 'token', render: consumeOnly((entry) => <Tag className="mg-log-wrap">{entry.token_name || '-'}</Tag>) },
    { title: t('column.group'), key: 'group', render: consumeOnly((entry) => <GroupTag group={entry.group} />) },
    {
      title: t('column.type'),
      key: 'type',
      render: (_, entry) => <Tag color={logTypeColor(entry.type)}>{t(`type.${entry.type}`, { defaultValue: t('type.unknown') })}</Tag>,
    },
    { title: t('column.model'), key: 'model', render: consumeOnly((entry) => <Tag color="blue" className="mg-log-wrap">{entry.model_name}</Tag>) },
    { title: t('column.useTime'), key: 'useTime', render: consumeOnly((entry) => <UseTime entry={entry} />) },
    { title: t('column.prompt'), key: 'prompt', render: consumeOnly((entry) => entry.prompt_tokens) },
    { title: t('column.completion'), key: 'completion', render: consumeOnly((entry) => entry.completion_tokens) },
    {
      title: t('column.cost'),
      key: 'cost',
      render: consumeOnly((entry) => (
        <div className="mg-tag-stack">
          <span data-testid="log-cost">{formatQuota(entry.quota, quotaDisplay, 6)}</span>
          <PaidBy entry={entry} />
        </div>
      )),
    },
    {
      title: t('column.detail'),
      key: 'content',
      render: (_, entry) => {
        const content = localizeLogContent(withExactRatios(entry.content, parseLogOther(entry.other)), t, i18n.language);
        return (
          <Typography.Paragraph className="mg-log-content" ellipsis={{ rows: 2, tooltip: content }}>
            {content}
          </Typography.Paragraph>
        );
      },
    },
  ];

  return (
    <Table<LogEntry>
      rowKey={(entry) => `${entry.id}-${entry.created_at}`}
      columns={columns}
      dataSource={props.items}
      loading={props.loading}
      // Compact cells: the admin view's twelve columns fit 1366 px with the details column whole.
      size="small"
      scroll={LIST_TABLE_SCROLL}
      locale={{ emptyText: <ListEmpty description={t('empty')} /> }}
      expandable={{
        rowExpandable: (entry) => isConsumeLog(entry.type),
        expandedRowRender: (entry) => <LogDetail entry={entry} admin={props.admin} />,
      }}
      pagination={listPagination(props.page, props.pageSize, props.total, props.onPageChange, props.totalCapped)}
    />
  );
}
