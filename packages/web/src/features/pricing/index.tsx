import { CopyOutlined } from '@ant-design/icons';
import { formatUsd, listPrice } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Input, Select, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { copyText } from '../../lib/clipboard';
import { fetchPricing, pricingKeys, type ModelPricing } from './api';
import { initialGroup, visibleModels } from './pricing-math';
import './pricing.css';

function PriceCell({ model, ratio, part }: { model: ModelPricing; ratio: number; part: 'input' | 'output' }) {
  const { t } = useTranslation('pricing');
  const price = listPrice(model, ratio);
  if (price.kind === 'call') return part === 'input' ? <span>{t('perCall', { price: formatUsd(price.perCall) })}</span> : <Typography.Text type="secondary">-</Typography.Text>;
  return <span>{t('perMillion', { price: formatUsd(price[part]) })}</span>;
}

/** Spec §2.12 pricing table (public): prices for the chosen group, gpt models first. */
export default function PricingPage() {
  const { t } = useTranslation('pricing');
  const { user } = useSession();
  const pricing = useQuery({ queryKey: pricingKeys.all, queryFn: fetchPricing });
  const [chosen, setGroup] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const groupRatio = pricing.data?.groupRatio ?? {};
  const group = chosen ?? initialGroup(groupRatio, user?.group);
  const ratio = groupRatio[group] ?? 1;
  const rows = useMemo(() => visibleModels(pricing.data?.models ?? [], group, search), [pricing.data, group, search]);

  const columns: ColumnsType<ModelPricing> = [
    {
      title: t('column.model'),
      dataIndex: 'model_name',
      render: (name: string) => (
        <Space size={4}>
          <Typography.Text code>{name}</Typography.Text>
          <Tooltip title={t('copy')}>
            <Button type="text" size="small" icon={<CopyOutlined />} aria-label={t('copyModel', { name })} onClick={() => void copyText(name, t('copied', { name }))} />
          </Tooltip>
        </Space>
      ),
    },
    {
      title: t('column.type'),
      key: 'type',
      width: 120,
      render: (_, m) => (m.quota_type === 1 ? <Tag color="purple">{t('type.call')}</Tag> : <Tag color="blue">{t('type.tokens')}</Tag>),
    },
    { title: t('column.input'), key: 'input', render: (_, m) => <PriceCell model={m} ratio={ratio} part="input" /> },
    { title: t('column.output'), key: 'output', render: (_, m) => <PriceCell model={m} ratio={ratio} part="output" /> },
    {
      title: t('column.ratio'),
      key: 'ratio',
      responsive: ['lg'],
      render: (_, m) => (m.quota_type === 1 ? '-' : t('ratioValue', { ratio: m.model_ratio, completion: m.completion_ratio })),
    },
    {
      title: t('column.groups'),
      dataIndex: 'enable_groups',
      responsive: ['md'],
      render: (groups: string[]) => groups.map((g) => <Tag key={g}>{g}</Tag>),
    },
  ];

  return (
    <Card title={t('title')} className="mg-page-card">
      <Space wrap className="mg-pricing-toolbar">
        <Select
          aria-label={t('group')}
          className="mg-pricing-group"
          value={group}
          onChange={setGroup}
          options={Object.keys(groupRatio).map((g) => ({ value: g, label: t('groupOption', { group: g, desc: pricing.data?.usableGroups[g] ?? g, ratio: groupRatio[g] }) }))}
        />
        <Input.Search allowClear aria-label={t('search')} placeholder={t('search')} className="mg-pricing-search" value={search} onChange={(e) => setSearch(e.target.value)} />
      </Space>
      <Alert className="mg-pricing-note" type="info" showIcon title={t('note', { group, ratio })} />
      <Table<ModelPricing>
        rowKey="model_name"
        size="middle"
        loading={pricing.isFetching}
        columns={columns}
        dataSource={rows}
        pagination={{ defaultPageSize: 20, showSizeChanger: true, pageSizeOptions: [10, 20, 50, 100] }}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: t('empty') }}
      />
    </Card>
  );
}
