import { Button, Popconfirm, Space, Table, Tag, Typography, type TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { ListEmpty } from '../../../components/list-empty';
import type { Plan } from '../api';
import { usePlanText } from '../use-plan-text';

/** The columns' widths add up to this: at 1366 px every column shows whole, narrower windows scroll. */
const PLAN_TABLE_SCROLL = { x: 1030 } as const;

interface PlanTableProps {
  plans: Plan[];
  loading: boolean;
  onEdit: (plan: Plan) => void;
  onDelete: (plan: Plan) => void;
  onGrant: (plan: Plan) => void;
}

/** Every plan with what it costs, lasts, allows and pays for. */
export function PlanTable({ plans, loading, onEdit, onDelete, onGrant }: PlanTableProps) {
  const { t } = useTranslation('plan');
  const text = usePlanText();
  const lines = (items: string[]) => (
    <Space orientation="vertical" size={0}>
      {items.map((line) => (
        <Typography.Text key={line}>{line}</Typography.Text>
      ))}
    </Space>
  );
  const columns: TableProps<Plan>['columns'] = [
    {
      title: t('column.name'),
      dataIndex: 'name',
      width: 130,
      render: (_, p) => (
        <div>
          <Typography.Text strong>{p.name}</Typography.Text>
          {p.description && (
            <div>
              <Typography.Text type="secondary" className="mg-small">
                {p.description}
              </Typography.Text>
            </div>
          )}
        </div>
      ),
    },
    { title: t('column.price'), dataIndex: 'price', width: 80, render: (v: number) => text.money(v) },
    { title: t('column.duration'), dataIndex: 'duration_days', width: 100, render: (v: number) => text.duration(v) },
    { title: t('column.allowances'), key: 'allowances', width: 160, render: (_, p) => lines(text.allowances(p.allowances)) },
    { title: t('column.scope'), key: 'scope', width: 130, render: (_, p) => lines(text.scope(p)) },
    { title: t('column.overflow'), dataIndex: 'fall_through', width: 110, render: (v: boolean) => (v ? t('overflow.wallet') : t('overflow.refuse')) },
    { title: t('column.status'), dataIndex: 'status', width: 90, render: (v: number) => (v === 1 ? <Tag color="green">{t('status.onSale')}</Tag> : <Tag>{t('status.off')}</Tag>) },
    { title: t('column.subscribers'), dataIndex: 'active_subscriptions', width: 80 },
    {
      title: t('column.actions'),
      key: 'actions',
      fixed: 'right',
      width: 150,
      render: (_, p) => (
        <Space orientation="vertical" size={4} align="start">
          <Button size="small" onClick={() => onEdit(p)}>
            {t('action.edit')}
          </Button>
          <Button size="small" onClick={() => onGrant(p)}>
            {t('action.grant')}
          </Button>
          <Popconfirm title={t('action.deleteConfirm', { name: p.name })} onConfirm={() => onDelete(p)}>
            <Button size="small" danger>
              {t('action.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];
  return (
    <Table<Plan>
      rowKey="id"
      columns={columns}
      dataSource={plans}
      loading={loading}
      pagination={false}
      scroll={PLAN_TABLE_SCROLL}
      locale={{ emptyText: <ListEmpty description={t('empty')} /> }}
    />
  );
}
