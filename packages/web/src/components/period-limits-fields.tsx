import { formatQuota, INT32_MAX, PERIOD_WINDOWS } from '@modelgate/shared';
import { Col, Form, InputNumber, Row, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../app/status';
import { amountRule } from '../lib/quota-input';
import './period-limits.css';

function QuotaHint({ name }: { name: (string | number)[] }) {
  const { quotaDisplay } = useStatus();
  const form = Form.useFormInstance();
  const value = Number(Form.useWatch(name, form) ?? 0);
  return <span className="mg-period-hint">{value > 0 ? formatQuota(value, quotaDisplay, 4) : ''}</span>;
}

/**
 * Caps per rolling 5 hours, day, week and month, in quota and in requests (docs/ledger.md
 * "Windows and plans"), for the token form, the user edit drawer and the plan form. `name` is the
 * field holding a PeriodLimits object; any combination may be set, 0 meaning none.
 */
export function PeriodLimitsFields({ name = 'period_limits', label, hint }: { name?: string; label?: string; hint?: string }) {
  const { t } = useTranslation('limits');
  return (
    <Form.Item label={label ?? t('periodLimits.title')} extra={hint ?? t('periodLimits.hint')} className="mg-period-limits">
      <Row gutter={8} className="mg-period-head">
        <Col span={6} />
        <Col span={10}>
          <Typography.Text type="secondary">{t('periodLimits.quota')}</Typography.Text>
        </Col>
        <Col span={8}>
          <Typography.Text type="secondary">{t('periodLimits.requests')}</Typography.Text>
        </Col>
      </Row>
      {PERIOD_WINDOWS.map((w) => (
        <Row key={w} gutter={8} align="top" className="mg-period-row" data-window={w}>
          <Col span={6} className="mg-period-label">
            {t(`periodLimits.window.${w}`)}
          </Col>
          <Col span={10}>
            <Form.Item name={[name, w, 'quota']} noStyle rules={[amountRule(0)]}>
              <InputNumber min={0} precision={0} className="mg-full-width" aria-label={`${t(`periodLimits.window.${w}`)} ${t('periodLimits.quota')}`} placeholder="0" />
            </Form.Item>
            <QuotaHint name={[name, w, 'quota']} />
          </Col>
          <Col span={8}>
            <Form.Item name={[name, w, 'requests']} noStyle>
              <InputNumber min={0} max={INT32_MAX} precision={0} className="mg-full-width" aria-label={`${t(`periodLimits.window.${w}`)} ${t('periodLimits.requests')}`} placeholder="0" />
            </Form.Item>
          </Col>
        </Row>
      ))}
    </Form.Item>
  );
}
