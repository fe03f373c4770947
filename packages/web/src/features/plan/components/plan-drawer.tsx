import { DEFAULT_QUOTA_PER_UNIT, formatQuota, hasPeriodLimits, type PeriodLimits } from '@modelgate/shared';
import { PlanStatus } from '@modelgate/shared/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Drawer, Form, Grid, Input, InputNumber, Select, Space, Switch } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { PeriodLimitsFields } from '../../../components/period-limits-fields';
import { showError, showSuccess } from '../../../lib/feedback';
import { useGroups } from '../../../lib/groups';
import { periodLimitsBody, periodLimitsFormValue } from '../../../lib/period-limits';
import { amountRule } from '../../../lib/quota-input';
import { fetchUserModels, userModelsKey } from '../../../lib/user-models';
import { createPlan, planKeys, updatePlan, type Plan, type PlanBody } from '../api';

interface FormValues {
  name: string;
  description: string;
  price: number;
  duration_days: number;
  allowances: PeriodLimits;
  models: string[];
  groups: string[];
  fall_through: boolean;
  on_sale: boolean;
}

const DEFAULTS: FormValues = {
  name: '',
  description: '',
  price: DEFAULT_QUOTA_PER_UNIT * 10,
  duration_days: 30,
  allowances: periodLimitsFormValue({ day: { quota: DEFAULT_QUOTA_PER_UNIT, requests: 0 } }),
  models: [],
  groups: [],
  fall_through: true,
  on_sale: true,
};

function toForm(p: Plan): FormValues {
  return {
    name: p.name,
    description: p.description,
    price: p.price,
    duration_days: p.duration_days,
    allowances: periodLimitsFormValue(p.allowances),
    models: p.models ? p.models.split(',') : [],
    groups: p.groups ? p.groups.split(',') : [],
    fall_through: p.fall_through,
    on_sale: p.status === PlanStatus.OnSale,
  };
}

/** Creates or edits a plan: price, duration, allowances per window, what it pays for, and what happens beyond it. */
export function PlanDrawer({ open, plan, onClose }: { open: boolean; plan: Plan | null; onClose: () => void }) {
  const { t } = useTranslation('plan');
  const { quotaDisplay } = useStatus();
  const screens = Grid.useBreakpoint();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<FormValues>();
  const groups = useGroups(open);
  const models = useQuery({ queryKey: userModelsKey, queryFn: fetchUserModels, staleTime: 60_000, enabled: open });
  const price = Number(Form.useWatch('price', form)) || 0;

  useEffect(() => {
    if (open) form.setFieldsValue(plan ? toForm(plan) : DEFAULTS);
  }, [open, plan, form]);

  const save = useMutation({
    mutationFn: (values: FormValues) => {
      const body: PlanBody = {
        name: values.name.trim(),
        description: values.description ?? '',
        price: values.price ?? 0,
        duration_days: values.duration_days ?? 0,
        allowances: periodLimitsBody(values.allowances),
        models: (values.models ?? []).join(','),
        groups: (values.groups ?? []).join(','),
        fall_through: !!values.fall_through,
        status: values.on_sale ? 1 : 2,
      };
      return plan ? updatePlan(plan.id, body) : createPlan(body);
    },
    onSuccess: () => {
      showSuccess(t('action.saved'));
      void queryClient.invalidateQueries({ queryKey: planKeys.all });
      onClose();
    },
  });

  const submit = (values: FormValues) => {
    if (!hasPeriodLimits(periodLimitsBody(values.allowances))) {
      showError(t('form.allowanceRequired'));
      return;
    }
    save.mutate(values);
  };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={plan ? t('form.editTitle') : t('form.createTitle')}
      size={screens.sm ? 560 : '100%'}
      destroyOnHidden
      footer={
        <Space className="mg-drawer-footer">
          <Button onClick={onClose}>{t('common:action.cancel')}</Button>
          <Button type="primary" loading={save.isPending} onClick={() => form.submit()}>
            {t('common:action.save')}
          </Button>
        </Space>
      }
    >
      <Form form={form} layout="vertical" onFinish={submit} name="plan" initialValues={DEFAULTS}>
        <Form.Item name="name" label={t('form.name')} rules={[{ required: true, whitespace: true, message: t('form.nameRequired') }, { max: 64 }]}>
          <Input placeholder={t('form.namePlaceholder')} count={{ show: true, max: 64 }} />
        </Form.Item>
        <Form.Item name="description" label={t('form.description')} rules={[{ max: 512 }]}>
          <Input.TextArea autoSize={{ minRows: 1, maxRows: 4 }} />
        </Form.Item>
        <Form.Item name="price" label={t('form.price')} extra={t('form.priceHint', { value: formatQuota(price, quotaDisplay, 4) })} rules={[amountRule(0)]}>
          <InputNumber min={0} precision={0} step={DEFAULT_QUOTA_PER_UNIT} className="mg-full-width" />
        </Form.Item>
        <Form.Item name="duration_days" label={t('form.duration')} extra={t('form.durationHint')}>
          <InputNumber min={0} max={36_500} precision={0} className="mg-full-width" />
        </Form.Item>
        <PeriodLimitsFields name="allowances" label={t('form.allowances')} hint={t('form.allowancesHint')} />
        <Form.Item name="models" label={t('form.models')} extra={t('form.modelsHint')}>
          <Select mode="tags" allowClear loading={models.isPending} options={(models.data ?? []).map((m) => ({ value: m, label: m }))} />
        </Form.Item>
        <Form.Item name="groups" label={t('form.groups')} extra={t('form.groupsHint')}>
          <Select mode="multiple" allowClear options={(groups.data ?? []).map((g) => ({ value: g, label: g }))} />
        </Form.Item>
        <Form.Item name="fall_through" label={t('form.fallThrough')} extra={t('form.fallThroughHint')} valuePropName="checked">
          <Switch />
        </Form.Item>
        <Form.Item name="on_sale" label={t('form.onSale')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
