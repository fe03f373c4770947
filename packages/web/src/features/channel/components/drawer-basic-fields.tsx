import { CHANNEL_TYPE_ORDER, ChannelType, channelTypeOf, modelsForType } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert, Form, Input, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { channelKeys, fetchModelsByType } from '../api';
import type { ChannelFormValues } from '../channel-form';

/** Type (with the spec §4 model prefill), name, addresses, type-specific fields and the key. */
export function BasicFields({ mode }: { mode: 'create' | 'edit'; channelId: number | null }) {
  const { t } = useTranslation('channel');
  const form = Form.useFormInstance<ChannelFormValues>();
  const type = Form.useWatch('type', form) ?? 1;
  const batch = Form.useWatch('batch', form) ?? false;
  const baseUrl = Form.useWatch('base_url', form) ?? '';
  const byType = useQuery({ queryKey: channelKeys.modelsByType, queryFn: fetchModelsByType, staleTime: 300_000 });
  const fields = channelTypeOf(type);

  const onTypeChange = (next: number) => {
    const models = form.getFieldValue('models') as string[] | undefined;
    if (!models || models.length === 0) form.setFieldValue('models', modelsForType(next, byType.data));
    // Spark's version is prefilled at once; Azure's default is applied on save (spec §5).
    if (next === ChannelType.Xunfei && !form.getFieldValue('other')) form.setFieldValue('other', channelTypeOf(next).defaultOther);
  };

  return (
    <>
      <Form.Item name="type" label={t('field.type')} required>
        <Select
          showSearch={{ optionFilterProp: 'label' }}
          onChange={onTypeChange}
          options={CHANNEL_TYPE_ORDER.map((id) => ({ value: id, label: t(`type.${id}`) }))}
        />
      </Form.Item>
      {fields.baseUrlField === 'azure' && (
        <Alert type="warning" showIcon className="mg-field-alert" title={t('field.azureHint')} />
      )}
      <Form.Item name="name" label={t('field.name')} required>
        <Input placeholder={t('field.namePlaceholder')} autoComplete="off" />
      </Form.Item>
      {fields.baseUrlField !== 'none' && (
        <Form.Item
          name="base_url"
          label={t(`field.baseUrl.${fields.baseUrlField}`)}
          required={fields.baseUrlField === 'azure' || fields.baseUrlField === 'custom'}
          extra={t(`field.baseUrlHint.${fields.baseUrlField}`)}
          // A base copied from a vendor's docs with its /v1 is the newcomer's 404 (issue 35): said while typing.
          {...(fields.baseUrlField === 'proxy' && endsWithV1(baseUrl) ? { validateStatus: 'warning' as const, help: t('field.baseUrlHint.v1Suffix') } : {})}
        >
          <Input placeholder={fields.baseUrl || t(`field.baseUrlPlaceholder.${fields.baseUrlField}`)} autoComplete="off" />
        </Form.Item>
      )}
      {fields.other && (
        <Form.Item name="other" label={t(`field.other.${fields.other}`)} extra={t(`field.otherHint.${fields.other}`)}>
          {fields.other === 'vertexRegion' ? (
            <Input.TextArea autoSize={{ minRows: 1, maxRows: 6 }} placeholder={t(`field.otherPlaceholder.${fields.other}`)} />
          ) : (
            <Input
              placeholder={fields.defaultOther ?? t(`field.otherPlaceholder.${fields.other}`)}
              autoComplete="off"
            />
          )}
        </Form.Item>
      )}
      {fields.organization && (
        <Form.Item name="openai_organization" label={t('field.organization')} extra={t('field.organizationHint')}>
          <Input placeholder={t('field.organizationPlaceholder')} autoComplete="off" />
        </Form.Item>
      )}
      {mode === 'create' && !fields.jsonKey && (
        <Form.Item
          name="batch"
          label={t('field.batch')}
          valuePropName="checked"
          layout="horizontal"
          colon={false}
          className="mg-switch-item"
          extra={t('field.batchHint')}
        >
          <Switch />
        </Form.Item>
      )}
      <Form.Item
        name="key"
        label={fields.jsonKey ? t('field.jsonKey') : t('field.key')}
        required={mode === 'create'}
        extra={mode === 'edit' ? t('field.keyEditHint') : undefined}
      >
        {fields.jsonKey || (batch && mode === 'create') ? (
          <Input.TextArea
            className="mg-json-area"
            autoSize={{ minRows: 3, maxRows: 10 }}
            placeholder={fields.jsonKey ? t('field.jsonKeyPlaceholder') : t('field.batchKeyPlaceholder')}
          />
        ) : (
          <Input
            placeholder={mode === 'edit' ? t('field.keyEditPlaceholder') : (fields.keyHint ?? t('field.keyPlaceholder'))}
            autoComplete="off"
          />
        )}
      </Form.Item>
    </>
  );
}

/** `https://host/v1` or `…/v1/`: the paths the server builds start with /v1 already. */
function endsWithV1(url: string): boolean {
  return /\/v1\/*$/i.test(url.trim());
}
