import { useQuery } from '@tanstack/react-query';
import { Form, Input, InputNumber, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { PeriodLimitsFields } from '../../../components/period-limits-fields';
import { fetchUserGroups, fetchUserModels, tokenKeys } from '../api';

/** Model limits (selector only when enabled), IP allow list and group. */
export function AccessFields() {
  const { t } = useTranslation('token');
  const form = Form.useFormInstance();
  const limitsEnabled = Form.useWatch('model_limits_enabled', form) ?? false;
  const models = useQuery({ queryKey: tokenKeys.models, queryFn: fetchUserModels, staleTime: 60_000 });
  const groups = useQuery({ queryKey: tokenKeys.groups, queryFn: fetchUserGroups, staleTime: 60_000 });

  const groupOptions = [
    { value: '', label: t('field.groupDefault') },
    ...Object.entries(groups.data ?? {}).map(([name, info]) => ({
      value: name,
      label: t('field.groupOption', { name, desc: info?.desc || name, ratio: info?.ratio ?? 1 }),
    })),
  ];

  return (
    <>
      <Form.Item
        name="model_limits_enabled"
        label={t('field.modelLimitsEnabled')}
        valuePropName="checked"
        layout="horizontal"
        colon={false}
        className="mg-switch-item"
      >
        <Switch />
      </Form.Item>
      {limitsEnabled && (
        <Form.Item name="model_limits" label={t('field.modelLimits')}>
          <Select
            mode="multiple"
            allowClear
            loading={models.isPending}
            placeholder={t('field.modelLimitsPlaceholder')}
            notFoundContent={t('field.noModels')}
            options={(models.data ?? []).map((model) => ({ value: model, label: model }))}
          />
        </Form.Item>
      )}
      <Form.Item name="allow_ips" label={t('field.allowIps')} extra={t('field.allowIpsHint')}>
        <Input.TextArea autoSize={{ minRows: 2, maxRows: 6 }} placeholder={t('field.allowIpsPlaceholder')} />
      </Form.Item>
      <Form.Item name="group" label={t('field.group')}>
        <Select loading={groups.isPending} options={groupOptions} />
      </Form.Item>
      <Form.Item name="rpm_limit" label={t('field.rpmLimit')} extra={t('field.limitHint')}>
        <InputNumber min={0} precision={0} className="mg-full-width" />
      </Form.Item>
      <Form.Item name="tpm_limit" label={t('field.tpmLimit')} extra={t('field.limitHint')}>
        <InputNumber min={0} precision={0} step={1000} className="mg-full-width" />
      </Form.Item>
      <PeriodLimitsFields />
    </>
  );
}
