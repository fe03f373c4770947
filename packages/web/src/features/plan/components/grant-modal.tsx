import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form, InputNumber, Modal, Select } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { grantPlan, planKeys, type Plan } from '../api';

interface GrantValues {
  user_id: number;
  plan_id: number;
}

/** Grants a plan to a user, free of charge (the subscription records who granted it). */
export function GrantModal({ plan, plans, onClose }: { plan: Plan | null; plans: Plan[]; onClose: () => void }) {
  const { t } = useTranslation('plan');
  const queryClient = useQueryClient();
  const [form] = Form.useForm<GrantValues>();
  const open = plan !== null;

  useEffect(() => {
    if (plan) form.setFieldsValue({ plan_id: plan.id });
  }, [plan, form]);

  const grant = useMutation({
    mutationFn: (v: GrantValues) => grantPlan(v.user_id, v.plan_id),
    onSuccess: () => {
      showSuccess(t('grant.done'));
      void queryClient.invalidateQueries({ queryKey: planKeys.all });
      onClose();
    },
  });

  return (
    <Modal
      open={open}
      title={t('grant.title')}
      okText={t('grant.ok')}
      cancelText={t('common:action.cancel')}
      confirmLoading={grant.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
      afterClose={() => form.resetFields()}
    >
      <Form form={form} layout="vertical" name="grant-plan" onFinish={(v) => grant.mutate(v)}>
        <Form.Item name="user_id" label={t('grant.userId')} rules={[{ required: true, message: t('grant.userIdRequired') }]}>
          <InputNumber min={1} precision={0} className="mg-full-width" />
        </Form.Item>
        <Form.Item name="plan_id" label={t('grant.plan')} rules={[{ required: true, message: t('grant.planRequired') }]}>
          <Select options={plans.map((p) => ({ value: p.id, label: p.name }))} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
