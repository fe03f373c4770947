import { Table, Tag, Tooltip, Typography, type TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { RoleTag } from '../../../components/user-tags';
import dayjs from '../../../lib/dayjs';
import { listPagination } from '../../../lib/pagination';
import type { AuditEntry } from '../api';
import { useAuditText } from '../audit-format';
import { AuditChangesCell } from './audit-changes';
import { ListEmpty } from '../../../components/list-empty';

interface AuditTableProps {
  items: AuditEntry[];
  loading: boolean;
  page: number;
  pageSize: number;
  total: number;
  onPageChange: (page: number, pageSize: number) => void;
}

/** Fixed column widths (the changes column takes the rest), so the screen fits 1366 px without scrolling sideways. */
export function AuditTable(props: AuditTableProps) {
  const { t } = useTranslation('audit');
  const text = useAuditText();
  const columns: TableProps<AuditEntry>['columns'] = [
    {
      title: t('column.time'),
      dataIndex: 'created_at',
      width: 108,
      render: (value: number) => (
        <span className="mg-audit-time">
          {dayjs.unix(value).format('YYYY-MM-DD')}
          <br />
          {dayjs.unix(value).format('HH:mm:ss')}
        </span>
      ),
    },
    {
      title: t('column.actor'),
      key: 'actor',
      width: 150,
      render: (_, e) => (
        <div className="mg-audit-actor">
          <Typography.Text strong ellipsis={{ tooltip: e.actor_name }}>
            {e.actor_name}
          </Typography.Text>
          <span>
            <RoleTag role={e.actor_role} />
            <Typography.Text type="secondary">#{e.actor_id}</Typography.Text>
          </span>
        </div>
      ),
    },
    {
      title: t('column.ip'),
      key: 'ip',
      width: 130,
      render: (_, e) => (
        <Tooltip title={e.user_agent || undefined}>
          <Typography.Text className="mg-audit-ip">{e.ip || '—'}</Typography.Text>
        </Tooltip>
      ),
    },
    {
      title: t('column.action'),
      key: 'action',
      width: 150,
      render: (_, e) => <Tag color="blue" className="mg-audit-tag">{text.actionLabel(e.action)}</Tag>,
    },
    {
      title: t('column.target'),
      key: 'target',
      width: 170,
      render: (_, e) => (
        <Typography.Text ellipsis={{ tooltip: text.targetText(e.target_type, e.target_id) }} className="mg-audit-target">
          {text.targetText(e.target_type, e.target_id)}
        </Typography.Text>
      ),
    },
    { title: t('column.changes'), key: 'changes', render: (_, e) => <AuditChangesCell entry={e} /> },
    {
      title: t('column.result'),
      key: 'result',
      width: 84,
      render: (_, e) =>
        e.success ? (
          <Tag color="success">{t('result.success')}</Tag>
        ) : (
          <Tooltip title={e.message}>
            <Tag color="error">{t('result.failure')}</Tag>
          </Tooltip>
        ),
    },
  ];
  return (
    <Table<AuditEntry>
      rowKey="id"
      columns={columns}
      dataSource={props.items}
      loading={props.loading}
      size="middle"
      tableLayout="fixed"
      scroll={{ x: 960 }}
      className="mg-audit-table"
      locale={{ emptyText: <ListEmpty description={t('empty')} /> }}
      pagination={listPagination(props.page, props.pageSize, props.total, props.onPageChange)}
    />
  );
}
