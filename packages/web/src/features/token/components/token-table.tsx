import { Table, Tag, Typography, type TableProps } from 'antd';
import dayjs from '../../../lib/dayjs';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { formatQuota } from '@modelgate/shared';
import { PAGE_SIZE_OPTIONS } from '../../../lib/storage';
import { maskKey, type Token } from '../api';
import { TokenRowActions } from './token-row-actions';
import { TokenStatusTag } from './token-status-tag';
import { ListEmpty } from '../../../components/list-empty';
import { LIST_TABLE_SCROLL } from '../../../lib/table';

interface TokenTableProps {
  tokens: Token[];
  loading: boolean;
  pagination: TableProps<Token>['pagination'];
  selectedKeys: number[];
  busyId: number | null;
  onSelect: (keys: number[]) => void;
  onCopy: (token: Token) => void;
  onToggle: (token: Token, status: number) => void;
  onEdit: (token: Token) => void;
  onDelete: (token: Token) => void;
}

const formatTime = (seconds: number) => (seconds > 0 ? dayjs.unix(seconds).format('YYYY-MM-DD HH:mm:ss') : '-');

export function TokenTable(props: TokenTableProps) {
  const { t } = useTranslation('token');
  const { quotaDisplay } = useStatus();

  const columns: TableProps<Token>['columns'] = [
    {
      title: t('column.name'),
      dataIndex: 'name',
      render: (_, token) => (
        <div>
          <Typography.Text strong>{token.name}</Typography.Text>
          <div>
            <Typography.Text type="secondary" code className="mg-small">
              {maskKey(token)}
            </Typography.Text>
          </div>
        </div>
      ),
    },
    { title: t('column.status'), key: 'status', render: (_, token) => <TokenStatusTag token={token} /> },
    { title: t('column.used'), dataIndex: 'used_quota', render: (value: number) => formatQuota(value, quotaDisplay) },
    {
      title: t('column.remaining'),
      key: 'remain',
      render: (_, token) =>
        token.unlimited_quota ? (
          <Tag color="purple">{t('column.unlimited')}</Tag>
        ) : (
          formatQuota(token.remain_quota, quotaDisplay)
        ),
    },
    { title: t('column.created'), dataIndex: 'created_time', render: formatTime },
    {
      title: t('column.expires'),
      dataIndex: 'expired_time',
      render: (value: number) => (value === -1 ? t('column.never') : formatTime(value)),
    },
    {
      title: t('column.actions'),
      key: 'actions',
      render: (_, token) => (
        <TokenRowActions
          token={token}
          busy={props.busyId === token.id}
          onCopy={() => props.onCopy(token)}
          onToggle={(status) => props.onToggle(token, status)}
          onEdit={() => props.onEdit(token)}
          onDelete={() => props.onDelete(token)}
        />
      ),
    },
  ];

  return (
    <Table<Token>
      rowKey="id"
      columns={columns}
      dataSource={props.tokens}
      loading={props.loading}
      scroll={LIST_TABLE_SCROLL}
      locale={{ emptyText: <ListEmpty description={t('empty')} /> }}
      rowSelection={{
        selectedRowKeys: props.selectedKeys,
        onChange: (keys) => props.onSelect(keys as number[]),
      }}
      pagination={
        props.pagination && {
          showSizeChanger: true,
          pageSizeOptions: PAGE_SIZE_OPTIONS.map(String),
          ...props.pagination,
        }
      }
    />
  );
}
