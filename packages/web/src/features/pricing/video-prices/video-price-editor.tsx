import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { DEFAULT_VIDEO_PRICE, serverMessage, type VideoPriceTable } from '@modelgate/shared';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Popconfirm, Space, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { showError, showSuccess } from '../../../lib/feedback';
import { checkOption, optionKeys, readOption, saveOption, type OptionMap } from '../../../lib/options';
import { pricingKeys } from '../api';
import { isAmountText, rowsFromVideoTable, tierText, videoTableFromRows, type VideoPriceRow } from './video-price-rows';

interface NewRow {
  model: string;
  tier: string;
  usd: string;
}

/**
 * The video prices (the VideoPrice option, issue 34): USD per second of video by model and
 * resolution tier (`720p`, `1080p`, or `*` for any tier the model does not name). A video costs
 * seconds × its tier's price × the group ratio; a model with no row here is billed per task at its
 * fixed price.
 */
export function VideoPriceEditor({ options }: { options: OptionMap }) {
  const { t, i18n } = useTranslation('pricing');
  const queryClient = useQueryClient();
  const lang = i18n.language?.startsWith('en') ? 'en' : 'zh';
  const stored = readOption(options, 'VideoPrice');
  const [rows, setRows] = useState<VideoPriceRow[]>(() => rowsFromVideoTable((stored && typeof stored === 'object' ? stored : DEFAULT_VIDEO_PRICE) as VideoPriceTable));
  const [saving, setSaving] = useState(false);
  const [form] = Form.useForm<NewRow>();

  const add = (v: NewRow) => {
    const tier = tierText(v.tier)!;
    const model = v.model.trim();
    setRows((cur) => [{ key: `${model}\u0000${tier}`, model, tier, usd: v.usd.trim() }, ...cur.filter((r) => !(r.model === model && r.tier === tier))]);
    form.resetFields();
  };

  const save = async () => {
    const value = JSON.stringify(videoTableFromRows(rows), null, 2);
    const checked = checkOption(options, 'VideoPrice', value);
    if (!checked.ok) return showError(`${t('video.title')}: ${serverMessage(checked.code, lang)}${checked.detail ? ` (${checked.detail})` : ''}`);
    setSaving(true);
    try {
      await saveOption('VideoPrice', value, true);
      showSuccess(t('editor.saved'));
    } catch (error) {
      showError(`${t('video.title')}: ${error instanceof ApiError ? error.message : String(error)}`);
    } finally {
      setSaving(false);
      await Promise.all([queryClient.invalidateQueries({ queryKey: optionKeys.all }), queryClient.invalidateQueries({ queryKey: pricingKeys.all })]);
    }
  };

  const columns: ColumnsType<VideoPriceRow> = [
    { title: t('video.model'), dataIndex: 'model', render: (m: string) => <Typography.Text code>{m}</Typography.Text> },
    { title: t('video.tier'), dataIndex: 'tier', width: 140, render: (tier: string) => (tier === '*' ? t('video.anyTier') : tier) },
    { title: t('video.usd'), dataIndex: 'usd', width: 180, render: (usd: string) => t('video.perSecond', { price: usd }) },
    {
      title: t('editor.actions'),
      key: 'actions',
      width: 80,
      render: (_, row) => (
        <Popconfirm title={t('video.deleteConfirm', { model: row.model, tier: row.tier })} okText={t('editor.confirm')} cancelText={t('editor.cancel')} onConfirm={() => setRows((cur) => cur.filter((r) => r.key !== row.key))}>
          <Button size="small" type="text" danger icon={<DeleteOutlined />} aria-label={t('video.delete', { model: row.model, tier: row.tier })} />
        </Popconfirm>
      ),
    },
  ];

  return (
    <div data-testid="video-price-editor">
      <Alert className="mg-ratio-toolbar" type="info" showIcon title={t('video.hint')} />
      <Form<NewRow> form={form} layout="inline" className="mg-ratio-toolbar" onFinish={add}>
        <Form.Item name="model" rules={[{ required: true, whitespace: true, message: t('editor.nameRequired') }]}>
          <Input placeholder={t('video.model')} aria-label={t('video.model')} />
        </Form.Item>
        <Form.Item name="tier" rules={[{ validator: (_, v: string | undefined) => (tierText(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('video.tierInvalid')))) }]}>
          <Input placeholder={t('video.tierPlaceholder')} aria-label={t('video.tier')} />
        </Form.Item>
        <Form.Item name="usd" rules={[{ validator: (_, v: string | undefined) => (isAmountText(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('editor.notNumber')))) }]}>
          <Input placeholder={t('video.usdPlaceholder')} aria-label={t('video.usd')} />
        </Form.Item>
        <Form.Item>
          <Button htmlType="submit" icon={<PlusOutlined />}>
            {t('video.add')}
          </Button>
        </Form.Item>
      </Form>
      <Table<VideoPriceRow> rowKey="key" size="small" columns={columns} dataSource={rows} pagination={{ pageSize: 10, showSizeChanger: false }} />
      <Space>
        <Button type="primary" loading={saving} onClick={() => void save()}>
          {t('video.save')}
        </Button>
      </Space>
    </div>
  );
}
