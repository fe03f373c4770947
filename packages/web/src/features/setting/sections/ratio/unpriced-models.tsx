import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Space, Switch, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { call } from '../../../../lib/api';
import { showSuccess } from '../../../../lib/feedback';
import { optionKeys, readOption, saveOption, type OptionMap } from '../../../../lib/options';
import { unlistedModels, type RatioTables } from './ratio-tables';

export const enabledModelsKey = ['channel', 'models_enabled'] as const;

/**
 * Models enabled on some channel that have no price or ratio: the relay refuses them unless
 * AllowUnpricedModels is on (then they are billed at ratio 30). Clicking one adds it in the
 * visual editor.
 */
export function UnpricedModels({ options, tables, onAdd }: { options: OptionMap; tables: RatioTables; onAdd: (name: string) => void }) {
  const { t } = useTranslation('pricing');
  const queryClient = useQueryClient();
  const enabled = useQuery({ queryKey: enabledModelsKey, queryFn: () => call('GET /api/channel/models_enabled') });
  // A video model priced per second (VideoPrice) is priced, whatever the per-token tables say.
  const videoPrices = readOption(options, 'VideoPrice');
  const missing = unlistedModels(enabled.data ?? [], tables).filter((m) => !(videoPrices && typeof videoPrices === 'object' && Object.hasOwn(videoPrices, m)));
  const allowed = readOption(options, 'AllowUnpricedModels');

  const toggle = async (next: boolean) => {
    await saveOption('AllowUnpricedModels', next);
    await queryClient.invalidateQueries({ queryKey: optionKeys.all });
    showSuccess(t('unpriced.switchSaved'));
  };

  const allow = (
    <Space>
      <Switch aria-label={t('unpriced.allow')} checked={allowed} onChange={(v) => void toggle(v)} />
      <Typography.Text>{t('unpriced.allow')}</Typography.Text>
    </Space>
  );

  if (enabled.isPending) return null;
  if (missing.length === 0) return <Alert type="success" showIcon title={t('unpriced.none')} action={allow} className="mg-ratio-unpriced" />;
  return (
    <Alert
      type="warning"
      showIcon
      className="mg-ratio-unpriced"
      title={t(allowed ? 'unpriced.titleAllowed' : 'unpriced.title', { count: missing.length })}
      description={
        <Space orientation="vertical" size={8}>
          <Typography.Text type="secondary">{t('unpriced.hint')}</Typography.Text>
          <Space wrap size={[4, 4]} data-testid="unpriced-models">
            {missing.map((m) => (
              <Tag key={m} color="orange" className="mg-clickable" onClick={() => onAdd(m)}>
                {m}
              </Tag>
            ))}
          </Space>
          {allow}
        </Space>
      }
    />
  );
}
