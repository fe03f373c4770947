import { formatQuota, redemptionStatusTag } from '@modelgate/shared';
import { Table, Tag, Typography, type TableProps } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { listPagination } from '../../../lib/pagination';
import type { Redemption } from '../api';
import { RedemptionRowActions } from './redemption-row-actions';
import { ListEmpty } from '../../../components/list-empty';
import { LIST_TABLE_SCROLL } from '../../../lib/table';

interface RedemptionTableProps {
  codes: Redemption[];
  loading: boolean;
  page: number;
  pageSize: number;
  total: number;
  selectedKeys: number[];
  busyId: number | null;
  onSelect: (keys: number[]) => void;
  onPageChange: (page: number, pageSize: number) => void;
  onCopy: (code: Redemption) => void;
  onToggle: (code: Redemption, status: number) => void;
  onEdit: (code: Redemption) => void;
  onDelete: (code: Redemption) => void;
}

const formatTime = (seconds: number) => (seconds > 0 ? dayjs.unix(seconds).format('YYYY-MM-DD HH:mm:ss') : '-');

export function RedemptionTable(props: RedemptionTableProps) {
  const { t } = useTranslation('redemption');
  const { quotaDisplay } = useStatus();

  const columns: TableProps<Redemption>['columns'] = [
    { title: t('column.id'), dataIndex: 'id', width: 70 },
    {
      title: t('column.name'),
      dataIndex: 'name',
      render: (_, code) => (
        <div>
          <Typography.Text strong>{code.name}</Typography.Text>
          <div>
            <Typography.Text type="secondary" code className="mg-small" data-testid="redemption-key">
              {code.key}
            </Typography.Text>
          </div>
        </div>
      ),
    },
    {
      title: t('column.status'),
      key: 'status',
      render: (_, code) => {
        const { key, color } = redemptionStatusTag(code.status);
        return <Tag color={color}>{t(`status.${key}`)}</Tag>;
      },
    },
    { title: t('column.quota'), dataIndex: 'quota', render: (value: number) => formatQuota(value, quotaDisplay) },
    { title: t('column.created'), dataIndex: 'created_time', render: formatTime },
    {
      title: t('column.usedBy'),
      key: 'usedBy',
      render: (_, code) =>
        code.used_user_id ? (
          <div>
            <Typography.Text>{code.used_username || t('column.userId', { id: code.used_user_id })}</Typography.Text>
            <div>
              <Typography.Text type="secondary" className="mg-small">
                {formatTime(code.redeemed_time)}
              </Typography.Text>
            </div>
          </div>
        ) : (
          <Typography.Text type="secondary">{t('column.notUsed')}</Typography.Text>
        ),
    },
    {
      title: t('column.actions'),
      key: 'actions',
      fixed: 'right',
      render: (_, code) => (
        <RedemptionRowActions
          code={code}
          busy={props.busyId === code.id}
          onCopy={() => props.onCopy(code)}
          onToggle={(status) => props.onToggle(code, status)}
          onEdit={() => props.onEdit(code)}
          onDelete={() => props.onDelete(code)}
        />
      ),
    },
  ];

  return (
    <Table<Redemption>
      rowKey="id"
      columns={columns}
      dataSource={props.codes}
      loading={props.loading}
      scroll={LIST_TABLE_SCROLL}
      locale={{ emptyText: <ListEmpty description={t('empty')} /> }}
      rowSelection={{ selectedRowKeys: props.selectedKeys, onChange: (keys) => props.onSelect(keys as number[]) }}
      pagination={listPagination(props.page, props.pageSize, props.total, props.onPageChange)}
    />
  );
}
