import { SearchOutlined } from '@ant-design/icons';
import { formatQuota } from '@modelgate/shared';
import { TopUpStatus } from '@modelgate/shared/api';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Form, Input, Select, Table, Tag, Typography, type TableProps } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { listPagination } from '../../../lib/pagination';
import { getPageSize, setPageSize } from '../../../lib/storage';
import { fetchOrders, topUpKeys, type OrderQuery, type TopUpOrder } from '../api';
import { ListEmpty } from '../../../components/list-empty';
import { LIST_TABLE_SCROLL } from '../../../lib/table';

const formatTime = (seconds: number) => (seconds > 0 ? dayjs.unix(seconds).format('YYYY-MM-DD HH:mm:ss') : '-');

/** Every online top-up order (admin): by trade number or username, and status. */
export function OrdersPanel() {
  const { t } = useTranslation('topup');
  const { status, quotaDisplay } = useStatus();
  const [query, setQuery] = useState<OrderQuery>(() => ({ keyword: '', status: '', page: 1, pageSize: getPageSize() }));
  const list = useQuery({ queryKey: topUpKeys.orders(query), queryFn: () => fetchOrders(query), placeholderData: keepPreviousData });

  const columns: TableProps<TopUpOrder>['columns'] = [
    { title: t('orders.column.id'), dataIndex: 'id', width: 70 },
    { title: t('orders.column.tradeNo'), dataIndex: 'trade_no', render: (value: string) => <Typography.Text code copyable>{value}</Typography.Text> },
    { title: t('orders.column.user'), key: 'user', render: (_, order) => order.username || t('orders.userId', { id: order.user_id }) },
    {
      title: t('orders.column.credit'),
      key: 'quota',
      // A plan paid online: the credit bought that plan (docs/ledger.md "Plans paid online").
      render: (_, order) => (order.plan_id > 0 ? `${formatQuota(order.quota, quotaDisplay)} · ${t('orders.planOrder', { id: order.plan_id })}` : formatQuota(order.quota, quotaDisplay)),
    },
    {
      title: t('orders.column.money'),
      key: 'money',
      render: (_, order) =>
        order.payment_method === 'stripe'
          ? t('stripe.money', { money: order.money.toFixed(2), currency: (status.stripe_currency || 'usd').toUpperCase() })
          : t('online.money', { money: order.money.toFixed(2) }),
    },
    {
      title: t('orders.column.method'),
      dataIndex: 'payment_method',
      render: (value: string) => (value === 'alipay' ? t('online.alipay') : value === 'wxpay' ? t('online.wechat') : value === 'stripe' ? t('stripe.method') : value || '-'),
    },
    {
      title: t('orders.column.status'),
      dataIndex: 'status',
      render: (value: string) =>
        value === TopUpStatus.Success ? (
          <Tag color="green">{t('orders.status.success')}</Tag>
        ) : value === TopUpStatus.Pending ? (
          <Tag color="gold">{t('orders.status.pending')}</Tag>
        ) : value === TopUpStatus.Failed ? (
          <Tag>{t('orders.status.failed')}</Tag>
        ) : value === TopUpStatus.Refunded || value === TopUpStatus.Disputed ? (
          <Tag color="red">{t(`orders.status.${value}`)}</Tag>
        ) : (
          <Tag>{value}</Tag>
        ),
    },
    // What the payment service reported (a refund, a dispute, a payment that could not start): the
    // admin's cue to act. One line, cut to a set width with the full text on hover (topup.css), so
    // a long note does not squeeze the other columns at 1366 px.
    {
      title: t('orders.column.note'),
      dataIndex: 'note',
      render: (value: string) =>
        value ? (
          <Typography.Text type="danger" ellipsis={{ tooltip: value }} className="mg-topup-note">
            {value}
          </Typography.Text>
        ) : (
          '-'
        ),
    },
    { title: t('orders.column.created'), dataIndex: 'create_time', render: formatTime },
    { title: t('orders.column.completed'), dataIndex: 'complete_time', render: formatTime },
  ];

  return (
    <>
      <div className="mg-toolbar">
        <Form
          layout="inline"
          className="mg-toolbar-form"
          initialValues={{ status: '' }}
          onFinish={(values: { keyword?: string; status?: string }) => setQuery((old) => ({ ...old, keyword: (values.keyword ?? '').trim(), status: values.status ?? '', page: 1 }))}
        >
          <Form.Item name="keyword">
            <Input allowClear prefix={<SearchOutlined />} placeholder={t('orders.search')} aria-label={t('orders.search')} className="mg-search-input" />
          </Form.Item>
          <Form.Item name="status">
            <Select
              aria-label={t('orders.column.status')}
              className="mg-topup-status"
              options={[
                { value: '', label: t('orders.status.all') },
                { value: TopUpStatus.Pending, label: t('orders.status.pending') },
                { value: TopUpStatus.Success, label: t('orders.status.success') },
                { value: TopUpStatus.Failed, label: t('orders.status.failed') },
                { value: TopUpStatus.Refunded, label: t('orders.status.refunded') },
                { value: TopUpStatus.Disputed, label: t('orders.status.disputed') },
              ]}
            />
          </Form.Item>
          <Form.Item>
            <Button type="primary" htmlType="submit">
              {t('orders.submit')}
            </Button>
          </Form.Item>
        </Form>
      </div>
      <Table<TopUpOrder>
        className="mg-topup-orders"
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isFetching}
        scroll={LIST_TABLE_SCROLL}
        locale={{ emptyText: <ListEmpty description={t('orders.empty')} /> }}
        pagination={listPagination(list.data?.page ?? query.page, query.pageSize, list.data?.total ?? 0, (page, pageSize) => {
          if (pageSize !== query.pageSize) setPageSize(pageSize);
          setQuery((old) => ({ ...old, page: pageSize !== old.pageSize ? 1 : page, pageSize }));
        })}
      />
    </>
  );
}
