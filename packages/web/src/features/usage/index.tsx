import { formatNumber, formatQuota, LogType } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Form, Input, Row, Statistic, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../app/status';
import dayjs from '../../lib/dayjs';
import { fetchUsageByKey, usageKeys, type LogEntry } from './api';
import './usage.css';
import { ListEmpty } from '../../components/list-empty';

/** Public "usage by key": an API key holder sees its latest calls and what they cost, without an account. */
export default function UsagePage() {
  const { t } = useTranslation('usage');
  const { quotaDisplay } = useStatus();
  const [input, setInput] = useState('');
  const [key, setKey] = useState('');
  const usage = useQuery({ queryKey: usageKeys.byKey(key), queryFn: () => fetchUsageByKey(key), enabled: key !== '', retry: false });
  const rows = usage.data ?? [];
  const consume = rows.filter((r) => r.type === LogType.Consume);
  const totals = consume.reduce((a, r) => ({ quota: a.quota + r.quota, tokens: a.tokens + r.prompt_tokens + r.completion_tokens }), { quota: 0, tokens: 0 });

  const columns: ColumnsType<LogEntry> = [
    { title: t('column.time'), dataIndex: 'created_at', width: 170, render: (ts: number) => dayjs.unix(ts).format('YYYY-MM-DD HH:mm:ss') },
    { title: t('column.model'), dataIndex: 'model_name', render: (m: string) => (m ? <Tag>{m}</Tag> : '-') },
    { title: t('column.prompt'), dataIndex: 'prompt_tokens', align: 'right' },
    { title: t('column.completion'), dataIndex: 'completion_tokens', align: 'right' },
    { title: t('column.quota'), dataIndex: 'quota', align: 'right', render: (q: number) => formatQuota(q, quotaDisplay, 6) },
    { title: t('column.detail'), dataIndex: 'content', responsive: ['lg'], render: (c: string) => <Typography.Text type="secondary">{c}</Typography.Text> },
  ];

  return (
    <Card title={t('title')} className="mg-page-card">
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      <Form layout="inline" component="div" className="mg-usage-form">
        <Form.Item label={t('key')} htmlFor="usage-key" className="mg-usage-key">
          <Input.Password id="usage-key" placeholder="sk-..." autoComplete="off" value={input} onChange={(e) => setInput(e.target.value)} onPressEnter={() => setKey(input.trim())} />
        </Form.Item>
        <Form.Item>
          <Button type="primary" disabled={!input.trim()} loading={usage.isFetching} onClick={() => setKey(input.trim())}>
            {t('query')}
          </Button>
        </Form.Item>
      </Form>
      {usage.isError && <Alert type="error" showIcon className="mg-usage-alert" title={usage.error.message} />}
      {usage.isSuccess && (
        <>
          <Row gutter={[12, 12]} className="mg-usage-totals">
            <Col xs={12} md={8}>
              <Card size="small">
                <Statistic title={t('total.calls')} value={formatNumber(consume.length)} />
              </Card>
            </Col>
            <Col xs={12} md={8}>
              <Card size="small">
                <Statistic title={t('total.quota')} value={formatQuota(totals.quota, quotaDisplay, 4)} />
              </Card>
            </Col>
            <Col xs={12} md={8}>
              <Card size="small">
                <Statistic title={t('total.tokens')} value={formatNumber(totals.tokens)} />
              </Card>
            </Col>
          </Row>
          <Table<LogEntry> rowKey={(r) => `${r.id}-${r.created_at}`} size="small" columns={columns} dataSource={rows} pagination={{ pageSize: 20 }} scroll={{ x: 'max-content' }} locale={{ emptyText: <ListEmpty description={t('empty')} /> }} />
        </>
      )}
    </Card>
  );
}
