import { channelTypeInfo, modelsForType } from '@modelgate/shared';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Form, Input, Select, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { useGroups } from '../../../lib/groups';
import { channelKeys, fetchAllModels, fetchModelsByType, fetchUpstreamModels } from '../api';
import { addCustomModels, type ChannelFormValues } from '../channel-form';

interface ModelFieldsProps {
  mode: 'create' | 'edit';
  channelId: number | null;
}

/** Groups, the model list with its fill/fetch/custom helpers, and the test model. */
export function ModelFields({ mode, channelId }: ModelFieldsProps) {
  const { t } = useTranslation('channel');
  const form = Form.useFormInstance<ChannelFormValues>();
  const type = Form.useWatch('type', form) ?? 1;
  const selected: string[] = Form.useWatch('models', form) ?? [];
  const [custom, setCustom] = useState('');
  const groups = useGroups();
  const allModels = useQuery({ queryKey: channelKeys.allModels, queryFn: fetchAllModels, staleTime: 300_000 });
  const byType = useQuery({ queryKey: channelKeys.modelsByType, queryFn: fetchModelsByType, staleTime: 300_000 });

  const upstream = useMutation({
    mutationFn: () => {
      const key = String(form.getFieldValue('key') ?? '').trim();
      // Editing without a new key: the server uses the stored key.
      if (mode === 'edit' && channelId !== null && !key) return fetchUpstreamModels({ id: channelId });
      return fetchUpstreamModels({ base_url: String(form.getFieldValue('base_url') ?? ''), key, type });
    },
    onSuccess: (models) => {
      form.setFieldValue('models', models);
      showSuccess(t('drawer.fetchedModels', { count: models.length }));
    },
  });

  const fetchFromUpstream = () => {
    // Spec §5: OpenAI-format upstreams list their models; so does Gemini (through its adapter).
    if (!channelTypeInfo(type)?.listsModels) return showError(t('drawer.fetchOpenAiOnly'));
    if (mode === 'create' && !String(form.getFieldValue('key') ?? '').trim()) return showError(t('drawer.fillKeyFirst'));
    upstream.mutate();
  };

  const addCustom = () => {
    const result = addCustomModels((form.getFieldValue('models') as string[] | undefined) ?? [], custom);
    if (!result) return;
    if ('duplicate' in result) return showError(t('drawer.modelExists'));
    form.setFieldValue('models', result.models);
    setCustom('');
  };

  const options = [...new Set([...(allModels.data ?? []), ...selected])].map((model) => ({ value: model, label: model }));

  return (
    <>
      <Form.Item name="groups" label={t('field.groups')} required>
        <Select
          mode="multiple"
          allowClear
          loading={groups.isPending}
          placeholder={t('field.groupsPlaceholder')}
          options={[...new Set([...(groups.data ?? []), ...((form.getFieldValue('groups') as string[]) ?? [])])].map(
            (group) => ({ value: group, label: group }),
          )}
        />
      </Form.Item>
      <Form.Item label={t('field.models')} required htmlFor="channel-models">
        <Form.Item name="models" noStyle>
          <Select
            id="channel-models"
            mode="multiple"
            allowClear
            loading={allModels.isPending}
            placeholder={t('field.modelsPlaceholder')}
            options={options}
            maxTagCount={30}
          />
        </Form.Item>
        <Space wrap size={[8, 8]} className="mg-model-buttons">
          <Button size="small" onClick={() => form.setFieldValue('models', modelsForType(type, byType.data))}>
            {t('drawer.fillTypeModels')}
          </Button>
          <Button size="small" onClick={() => form.setFieldValue('models', allModels.data ?? [])}>
            {t('drawer.fillAllModels')}
          </Button>
          <Button size="small" loading={upstream.isPending} onClick={fetchFromUpstream}>
            {t('drawer.fetchModels')}
          </Button>
          <Button size="small" danger onClick={() => form.setFieldValue('models', [])}>
            {t('drawer.clearModels')}
          </Button>
        </Space>
      </Form.Item>
      <Form.Item label={t('field.customModels')} htmlFor="channel-custom-models">
        <Space.Compact className="mg-full-width">
          <Input
            id="channel-custom-models"
            value={custom}
            placeholder={t('field.customModelsPlaceholder')}
            onChange={(event) => setCustom(event.target.value)}
            onPressEnter={(event) => {
              event.preventDefault();
              addCustom();
            }}
          />
          <Button onClick={addCustom}>{t('drawer.addCustom')}</Button>
        </Space.Compact>
      </Form.Item>
      <Form.Item name="test_model" label={t('field.testModel')} extra={t('field.testModelHint')}>
        <Input placeholder={t('field.testModelPlaceholder')} autoComplete="off" />
      </Form.Item>
    </>
  );
}
