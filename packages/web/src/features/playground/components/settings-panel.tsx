import { formatQuota } from '@modelgate/shared';
import { Button, Card, Form, Input, InputNumber, Popconfirm, Select, Slider, Statistic } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import type { UsableGroup } from '../api';
import type { PlaygroundSettings } from '../storage';

interface SettingsPanelProps {
  settings: PlaygroundSettings;
  onChange: (change: Partial<PlaygroundSettings>) => void;
  groups: Record<string, UsableGroup>;
  models: string[];
  modelsLoading: boolean;
  quota: number | undefined;
  canClear: boolean;
  onClear: () => void;
}

/** The left panel (spec screen 13): group, model, sampling, max tokens, system prompt, balance. */
export function SettingsPanel({ settings, onChange, groups, models, modelsLoading, quota, canClear, onClear }: SettingsPanelProps) {
  const { t } = useTranslation('playground');
  const { quotaDisplay } = useStatus();
  const groupOptions = Object.entries(groups).map(([name, g]) => ({ value: name, label: g.desc && g.desc !== name ? `${name} · ${g.desc}` : name }));
  const modelOptions = [...new Set([...models, ...(settings.model ? [settings.model] : [])])].map((m) => ({ value: m, label: m }));
  return (
    <Card size="small" className="mg-pg-settings" title={t('settings.title')}>
      <Statistic className="mg-pg-balance" title={t('settings.balance')} value={quota === undefined ? '-' : formatQuota(quota, quotaDisplay, 4)} />
      <Form layout="vertical" size="middle" requiredMark={false}>
        <Form.Item label={t('settings.group')}>
          <Select
            aria-label={t('settings.group')}
            value={settings.group || undefined}
            options={groupOptions}
            placeholder={t('settings.groupPlaceholder')}
            onChange={(group: string) => onChange({ group })}
          />
        </Form.Item>
        <Form.Item label={t('settings.model')} extra={!modelsLoading && models.length === 0 ? t('settings.noModels') : undefined}>
          <Select
            aria-label={t('settings.model')}
            showSearch
            loading={modelsLoading}
            value={settings.model || undefined}
            options={modelOptions}
            placeholder={t('settings.modelPlaceholder')}
            onChange={(model: string) => onChange({ model })}
          />
        </Form.Item>
        <Form.Item label={t('settings.temperature', { value: settings.temperature })}>
          <Slider min={0.1} max={1} step={0.1} value={settings.temperature} onChange={(temperature: number) => onChange({ temperature })} />
        </Form.Item>
        <Form.Item label={t('settings.topP', { value: settings.topP })}>
          <Slider min={0} max={1} step={0.05} value={settings.topP} onChange={(topP: number) => onChange({ topP })} />
        </Form.Item>
        <Form.Item label={t('settings.maxTokens')} extra={t('settings.maxTokensHint')}>
          <InputNumber
            aria-label={t('settings.maxTokens')}
            className="mg-pg-full"
            min={0}
            max={1_000_000}
            precision={0}
            value={settings.maxTokens}
            onChange={(v) => onChange({ maxTokens: typeof v === 'number' ? v : 0 })}
          />
        </Form.Item>
        <Form.Item label={t('settings.systemPrompt')}>
          <Input.TextArea
            aria-label={t('settings.systemPrompt')}
            autoSize={{ minRows: 3, maxRows: 8 }}
            value={settings.systemPrompt}
            placeholder={t('settings.systemPromptPlaceholder')}
            onChange={(e) => onChange({ systemPrompt: e.target.value })}
          />
        </Form.Item>
      </Form>
      <Popconfirm title={t('chat.clearConfirm')} okText={t('chat.clear')} cancelText={t('common:action.cancel')} onConfirm={onClear} disabled={!canClear}>
        <Button block danger disabled={!canClear}>
          {t('chat.clear')}
        </Button>
      </Popconfirm>
    </Card>
  );
}
