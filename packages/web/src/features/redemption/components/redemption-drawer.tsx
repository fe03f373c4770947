import { DEFAULT_QUOTA_PER_UNIT, formatQuota } from '@modelgate/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Drawer, Form, Grid, Input, InputNumber, Skeleton, Space } from 'antd';
import { amountRule } from '../../../lib/quota-input';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { showSuccess } from '../../../lib/feedback';
import { createRedemptions, fetchRedemption, redemptionKeys, updateRedemption } from '../api';

/** Spec §5 and §9: name 1–20 characters, at most 100 per batch; new codes default to $0.20 and one code. */
const NAME_MAX = 20;
const BATCH_MAX = 100;
const DEFAULTS = { name: '', quota: DEFAULT_QUOTA_PER_UNIT / 5, count: 1 };

interface FormValues {
  name?: string;
  quota?: number;
  count?: number;
}

interface RedemptionDrawerProps {
  open: boolean;
  /** null: create mode. */
  codeId: number | null;
  onClose: () => void;
  /** The keys of newly created codes, with the name they were given. */
  onCreated: (name: string, keys: string[]) => void;
}

export function RedemptionDrawer({ open, codeId, onClose, onCreated }: RedemptionDrawerProps) {
  const { t } = useTranslation('redemption');
  const { quotaDisplay } = useStatus();
  const screens = Grid.useBreakpoint();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<FormValues>();
  const editing = codeId !== null;
  const existing = useQuery({ queryKey: redemptionKeys.detail(codeId ?? 0), queryFn: () => fetchRedemption(codeId!), enabled: open && editing });
  const quota = Number(Form.useWatch('quota', form)) || 0;
  const fallbackName = formatQuota(quota, quotaDisplay);

  useEffect(() => {
    if (!open) return;
    if (!editing) form.setFieldsValue(DEFAULTS);
    else if (existing.data) form.setFieldsValue({ name: existing.data.name, quota: existing.data.quota });
  }, [open, editing, existing.data, form]);

  const save = useMutation({
    mutationFn: async (values: FormValues) => {
      const name = (values.name ?? '').trim();
      if (editing) {
        await updateRedemption({ id: codeId, name, quota: values.quota });
        return null;
      }
      return { name: name || fallbackName, keys: await createRedemptions({ name, quota: values.quota, count: values.count }) };
    },
    onSuccess: (created) => {
      void queryClient.invalidateQueries({ queryKey: redemptionKeys.all });
      if (created) onCreated(created.name, created.keys);
      else showSuccess(t('drawer.updated'));
      onClose();
    },
  });

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={editing ? t('drawer.editTitle') : t('drawer.createTitle')}
      size={screens.sm ? 480 : '100%'}
      destroyOnHidden
      footer={
        <Space className="mg-drawer-footer">
          <Button onClick={onClose}>{t('common:action.cancel')}</Button>
          <Button type="primary" loading={save.isPending} disabled={editing && !existing.data} onClick={() => form.submit()}>
            {t('common:action.submit')}
          </Button>
        </Space>
      }
    >
      {editing && !existing.data ? (
        <Skeleton active paragraph={{ rows: 4 }} />
      ) : (
        <Form form={form} layout="vertical" name="redemption" initialValues={DEFAULTS} onFinish={(values) => save.mutate(values)}>
          <Form.Item
            name="name"
            label={t('field.name')}
            extra={editing ? undefined : t('field.nameHint', { name: fallbackName })}
            rules={editing ? [{ required: true, whitespace: true, message: t('field.nameRequired') }] : []}
          >
            <Input maxLength={NAME_MAX} showCount placeholder={fallbackName} />
          </Form.Item>
          <Form.Item
            name="quota"
            label={t('field.quota')}
            extra={t('field.quotaEquivalent', { value: formatQuota(quota, quotaDisplay, 6) })}
            rules={[{ required: true, message: t('field.quotaRequired') }, amountRule(1)]}
          >
            <InputNumber min={1} precision={0} step={DEFAULT_QUOTA_PER_UNIT} className="mg-full-width" />
          </Form.Item>
          {!editing && (
            <Form.Item name="count" label={t('field.count')} extra={t('field.countHint', { max: BATCH_MAX })} rules={[{ required: true, message: t('field.countRequired') }]}>
              <InputNumber min={1} max={BATCH_MAX} precision={0} className="mg-full-width" />
            </Form.Item>
          )}
        </Form>
      )}
    </Drawer>
  );
}
