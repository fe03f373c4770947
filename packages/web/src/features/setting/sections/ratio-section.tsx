import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Popconfirm, Tabs } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../../lib/api';
import { showSuccess } from '../../../lib/feedback';
import { fetchOptions, optionKeys } from '../../../lib/options';
import { pricingKeys } from '../../pricing/api';
import { VideoPriceEditor } from '../../pricing/video-prices/video-price-editor';
import { RatioJsonEditor } from './ratio/json-editor';
import { tablesFromOptions } from './ratio/ratio-tables';
import { UnpricedModels } from './ratio/unpriced-models';
import { RatioVisualEditor } from './ratio/visual-editor';
import './ratio/ratio.css';

/**
 * Operation → model pricing (spec §2.6 "model ratio" and "visual ratio" tabs): ModelPrice,
 * ModelRatio, CompletionRatio, CacheRatio and CreateCacheRatio as JSON or as a table, the models still without a price, and the
 * reset to the defaults. Self-contained: it loads the options itself.
 */
export function RatioSection() {
  const { t } = useTranslation('pricing');
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: optionKeys.all, queryFn: fetchOptions });
  const [tab, setTab] = useState('json');
  const [adding, setAdding] = useState<string | null>(null);
  const options = query.data ?? {};
  const tables = tablesFromOptions(options);
  // The editors start from the saved tables; a save or reset gives them fresh ones.
  const version = query.dataUpdatedAt;

  const reset = async () => {
    // scope=all: every price table (the reference's console resets the model ratios alone).
    await call('POST /api/option/rest_model_ratio', { query: { scope: 'all' } });
    await Promise.all([queryClient.invalidateQueries({ queryKey: optionKeys.all }), queryClient.invalidateQueries({ queryKey: pricingKeys.all })]);
    showSuccess(t('editor.resetDone'));
  };

  return (
    <Card
      title={t('editor.title')}
      loading={query.isPending}
      data-section="ratio"
      extra={
        <Popconfirm title={t('editor.resetConfirm')} okText={t('editor.confirm')} cancelText={t('editor.cancel')} onConfirm={() => void reset()}>
          <Button danger>{t('editor.reset')}</Button>
        </Popconfirm>
      }
    >
      <UnpricedModels
        options={options}
        tables={tables}
        onAdd={(name) => {
          setAdding(name);
          setTab('visual');
        }}
      />
      <Tabs
        activeKey={tab}
        onChange={setTab}
        items={[
          { key: 'json', label: t('editor.tabJson'), children: <RatioJsonEditor key={version} options={options} tables={tables} /> },
          {
            key: 'visual',
            label: t('editor.tabVisual'),
            children: <RatioVisualEditor key={version} options={options} tables={tables} adding={adding} onAdded={() => setAdding(null)} />,
          },
          { key: 'video', label: t('editor.tabVideo'), children: <VideoPriceEditor key={version} options={options} /> },
        ]}
      />
    </Card>
  );
}
