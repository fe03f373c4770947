import { useMutation } from '@tanstack/react-query';
import { Button, DatePicker, Form, Space } from 'antd';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../../lib/api';
import { showError, showSuccess } from '../../../lib/feedback';
import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'LogConsumeEnabled', kind: 'switch' },
  { key: 'LogRetentionDays', kind: 'number', min: 0 },
  { key: 'AuditLogRetentionDays', kind: 'number', min: 0 },
];

/** Deletes usage log rows older than a chosen time (spec §5: the time must be chosen). */
function ClearLogs() {
  const { t } = useTranslation('setting');
  const [before, setBefore] = useState<Dayjs | null>(null);
  const clear = useMutation({
    mutationFn: (at: Dayjs) => call('DELETE /api/log/', { query: { target_timestamp: at.unix() } }),
    onSuccess: (count) => showSuccess(t('section.logsCleared', { count: Number(count) })),
  });
  const onClear = () => {
    if (!before) showError(t('section.logsPickTime'));
    else clear.mutate(before);
  };
  return (
    <Form layout="vertical" component="div">
      <Form.Item label={t('section.logsClear')} htmlFor="logs-clear-before" extra={t('section.logsClearHint')}>
        <Space wrap>
          <DatePicker id="logs-clear-before" showTime value={before} onChange={setBefore} />
          <Button danger onClick={onClear} loading={clear.isPending}>
            {t('section.logsClearButton')}
          </Button>
        </Space>
      </Form.Item>
    </Form>
  );
}

/** Operation → logs: whether consumption is logged, how long usage logs and the audit log are kept, and a manual clean-up. */
export function LogsSection() {
  return (
    <OptionSectionCard name="logs" fields={FIELDS}>
      <ClearLogs />
    </OptionSectionCard>
  );
}
