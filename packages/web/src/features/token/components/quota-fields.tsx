import { Button, Form, InputNumber, Space, Switch } from 'antd';
import { amountRule } from '../../../lib/quota-input';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { DEFAULT_QUOTA_PER_UNIT, formatQuota } from '@modelgate/shared';
import { COUNT_PRESETS } from '../token-form';

/** Remaining quota, the unlimited toggle that disables quota and count (spec §5), and batch count. */
export function QuotaFields({ mode }: { mode: 'create' | 'edit' }) {
  const { t } = useTranslation('token');
  const { quotaDisplay } = useStatus();
  const form = Form.useFormInstance();
  const unlimited = Form.useWatch('unlimited_quota', form) ?? false;
  const quota = Form.useWatch('remain_quota', form) ?? 0;

  return (
    <>
      <Form.Item
        name="remain_quota"
        label={t('field.quota')}
        extra={unlimited ? t('field.quotaUnlimitedHint') : t('field.quotaEquivalent', { value: formatQuota(Number(quota) || 0, quotaDisplay, 6) })}
        rules={unlimited ? [] : [amountRule(0)]}
      >
        <InputNumber min={0} precision={0} step={DEFAULT_QUOTA_PER_UNIT} disabled={unlimited} className="mg-full-width" />
      </Form.Item>
      <Form.Item name="unlimited_quota" label={t('field.unlimited')} valuePropName="checked" layout="horizontal" colon={false} className="mg-switch-item">
        <Switch />
      </Form.Item>
      {mode === 'create' && (
        <Form.Item label={t('field.count')} extra={t('field.countHint')} htmlFor="token-count">
          <Space wrap size={[8, 8]}>
            <Form.Item name="count" noStyle>
              <InputNumber id="token-count" min={1} precision={0} disabled={unlimited} />
            </Form.Item>
            {COUNT_PRESETS.map((preset) => (
              <Button key={preset} size="small" disabled={unlimited} onClick={() => form.setFieldValue('count', preset)}>
                {preset}
              </Button>
            ))}
          </Space>
        </Form.Item>
      )}
    </>
  );
}
