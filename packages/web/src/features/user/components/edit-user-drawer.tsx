import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Drawer, Form, Grid, Input, InputNumber, Select, Skeleton, Space, Typography } from 'antd';
import { amountRule, amountTotalRule } from '../../../lib/quota-input';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { showSuccess } from '../../../lib/feedback';
import { formatQuota, USERNAME_MAX_LENGTH, type PeriodLimits } from '@modelgate/shared';
import { PeriodLimitsFields } from '../../../components/period-limits-fields';
import { periodLimitsBody, periodLimitsFormValue } from '../../../lib/period-limits';
import { useGroups } from '../../../lib/groups';
import type { UpdateUserBody } from '@modelgate/shared/api';
import { fetchUser, updateUser, userKeys } from '../api';
import { ResetTwoFactor } from '../../two-factor/reset-two-factor';

interface EditUserDrawerProps {
  userId: number | null;
  onClose: () => void;
  onSaved: () => void;
}

interface EditFields {
  username: string;
  display_name: string;
  password: string;
  group: string;
  quota: number;
  add_quota: number;
  concurrency_limit: number;
  period_limits: PeriodLimits;
}

export function EditUserDrawer({ userId, onClose, onSaved }: EditUserDrawerProps) {
  const { t } = useTranslation('user');
  const { quotaDisplay } = useStatus();
  const screens = Grid.useBreakpoint();
  const [form] = Form.useForm<EditFields>();
  const open = userId !== null;

  const user = useQuery({
    queryKey: userKeys.detail(userId ?? 0),
    queryFn: () => fetchUser(userId!),
    enabled: open,
    gcTime: 0,
  });
  const groups = useGroups();

  useEffect(() => {
    if (user.data) {
      form.setFieldsValue({
        username: user.data.username,
        display_name: user.data.display_name,
        password: '',
        group: user.data.group,
        quota: user.data.quota,
        add_quota: 0,
        concurrency_limit: user.data.concurrency_limit ?? 0,
        period_limits: periodLimitsFormValue(user.data.period_limits),
      });
    }
  }, [user.data, form]);

  const mutation = useMutation({
    mutationFn: (payload: UpdateUserBody) => updateUser(payload),
    onSuccess: () => {
      showSuccess(t('edit.success'));
      onSaved();
      onClose();
    },
  });

  const submit = (values: EditFields) => {
    if (!user.data) return;
    const { quota: shown, ...rest } = user.data;
    const added = Math.trunc((values.quota ?? shown) - shown + (values.add_quota ?? 0));
    mutation.mutate({
      ...rest,
      id: user.data.id,
      username: values.username.trim(),
      display_name: values.display_name ?? '',
      // An empty password leaves the stored one unchanged (console-api.md §5).
      password: values.password ?? '',
      group: values.group,
      concurrency_limit: Math.max(0, Math.trunc(values.concurrency_limit ?? 0)),
      period_limits: periodLimitsBody(values.period_limits),
      // A change is sent as a delta: charges that settle while the drawer is open are kept, and the
      // server logs what was added. An untouched balance is not sent at all.
      ...(added !== 0 ? { add_quota: added } : {}),
    });
  };

  const quota = Form.useWatch('quota', form) ?? 0;
  const addQuota = Form.useWatch('add_quota', form) ?? 0;
  const groupOptions = [...new Set([...(groups.data ?? []), user.data?.group].filter(Boolean) as string[])];

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('edit.title')}
      size={screens.sm ? 520 : '100%'}
      destroyOnHidden
      afterOpenChange={(visible) => !visible && form.resetFields()}
      footer={
        <Space className="mg-drawer-footer">
          <Button onClick={onClose}>{t('common:action.cancel')}</Button>
          <Button type="primary" loading={mutation.isPending} disabled={!user.data} onClick={() => form.submit()}>
            {t('common:action.save')}
          </Button>
        </Space>
      }
    >
      {!user.data ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : (
        <Form form={form} layout="vertical" onFinish={submit} name="edit-user">
          <Form.Item
            name="username"
            label={t('field.username')}
            rules={[
              { required: true, whitespace: true, message: t('add.usernameRequired') },
              { max: USERNAME_MAX_LENGTH, message: t('add.usernameTooLong', { max: USERNAME_MAX_LENGTH }) },
            ]}
          >
            <Input count={{ show: true, max: USERNAME_MAX_LENGTH }} />
          </Form.Item>
          <Form.Item name="display_name" label={t('field.displayName')}>
            <Input />
          </Form.Item>
          <Form.Item name="password" label={t('field.password')} extra={t('edit.passwordHint')}>
            <Input.Password autoComplete="new-password" placeholder={t('edit.passwordPlaceholder')} />
          </Form.Item>
          <Form.Item name="group" label={t('field.group')}>
            <Select options={groupOptions.map((group) => ({ value: group, label: group }))} />
          </Form.Item>
          <Form.Item
            name="quota"
            label={t('field.quota')}
            extra={t('edit.equivalent', { value: formatQuota(quota, quotaDisplay, 6) })}
            rules={[amountRule(0)]}
          >
            <InputNumber precision={0} className="mg-full-width" />
          </Form.Item>
          <Form.Item
            name="add_quota"
            label={t('field.addQuota')}
            extra={t('edit.addQuotaHint', { total: formatQuota(quota + addQuota, quotaDisplay, 6) })}
            dependencies={['quota']}
            rules={[amountTotalRule(() => form.getFieldValue('quota'))]}
          >
            <InputNumber precision={0} className="mg-full-width" />
          </Form.Item>
          <Form.Item name="concurrency_limit" label={t('field.concurrencyLimit')} extra={t('edit.concurrencyLimitHint')}>
            <InputNumber min={0} precision={0} className="mg-full-width" />
          </Form.Item>
          <PeriodLimitsFields />
          {user.data.email && (
            <Typography.Paragraph type="secondary">{t('edit.email', { email: user.data.email })}</Typography.Paragraph>
          )}
          <ResetTwoFactor userId={user.data.id} />
        </Form>
      )}
    </Drawer>
  );
}
