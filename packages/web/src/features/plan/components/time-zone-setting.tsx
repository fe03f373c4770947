import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Form, Input, Space, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { fetchTimeZone, planKeys, saveTimeZone } from '../api';

/** The site's time zone for calendar windows (the `TimeZone` option): the super admin sets it here. */
export function TimeZoneSetting() {
  const { t } = useTranslation('plan');
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ zone: string }>();
  const current = useQuery({ queryKey: planKeys.timeZone, queryFn: fetchTimeZone });

  useEffect(() => {
    if (current.data !== undefined) form.setFieldsValue({ zone: current.data });
  }, [current.data, form]);

  const save = useMutation({
    mutationFn: (zone: string) => saveTimeZone(zone.trim()),
    onSuccess: () => {
      showSuccess(t('timeZone.saved'));
      void queryClient.invalidateQueries({ queryKey: planKeys.timeZone });
    },
  });

  return (
    <Form form={form} layout="vertical" name="time-zone" onFinish={(v) => save.mutate(v.zone ?? '')} className="mg-plan-zone">
      <Form.Item label={t('timeZone.label')} extra={<Typography.Text type="secondary">{t('timeZone.hint')}</Typography.Text>}>
        <Space.Compact>
          <Form.Item name="zone" noStyle>
            <Input placeholder={t('timeZone.placeholder')} aria-label={t('timeZone.label')} className="mg-plan-zone-input" />
          </Form.Item>
          <Button htmlType="submit" loading={save.isPending}>
            {t('timeZone.save')}
          </Button>
        </Space.Compact>
      </Form.Item>
    </Form>
  );
}
