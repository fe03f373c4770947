import { SearchOutlined } from '@ant-design/icons';
import { AUDIT_ACTIONS, AUDIT_FAMILIES, AUDIT_TARGETS } from '@modelgate/shared';
import { Button, DatePicker, Form, Grid, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from '../../../lib/dayjs';
import { EMPTY_AUDIT_FILTERS, type AuditFilters } from '../api';
import { useAuditText } from '../audit-format';

interface AuditFiltersFormProps {
  initial: AuditFilters;
  loading: boolean;
  onApply: (filters: AuditFilters) => void;
}

interface FormValues {
  range: [Dayjs | null, Dayjs | null] | null;
  actor: string;
  action: string;
  targetType: string;
  target: string;
  result: AuditFilters['result'];
}

function toForm(f: AuditFilters): FormValues {
  return {
    range: [f.start ? dayjs.unix(f.start) : null, f.end ? dayjs.unix(f.end) : null],
    actor: f.actor,
    action: f.action,
    targetType: f.targetType,
    target: f.target,
    result: f.result,
  };
}

/** Search by time range, actor, action (or a family of actions), target and outcome. */
export function AuditFiltersForm({ initial, loading, onApply }: AuditFiltersFormProps) {
  const { t } = useTranslation('audit');
  const text = useAuditText();
  const [form] = Form.useForm<FormValues>();
  const wide = Grid.useBreakpoint().sm !== false;

  const submit = (v: FormValues) => {
    const [start, end] = v.range ?? [null, null];
    onApply({
      start: start ? start.unix() : 0,
      end: end ? end.unix() : 0,
      actor: (v.actor ?? '').trim(),
      action: v.action ?? '',
      targetType: v.targetType ?? '',
      target: (v.target ?? '').trim(),
      result: v.result ?? '',
    });
  };
  const reset = () => {
    form.setFieldsValue(toForm(EMPTY_AUDIT_FILTERS));
    onApply(EMPTY_AUDIT_FILTERS);
  };

  const actionOptions = [
    { value: '', label: t('filter.allActions') },
    ...AUDIT_FAMILIES.map((family) => ({
      label: t(`family.${family}`),
      title: t(`family.${family}`),
      options: [
        { value: family, label: t('filter.familyAll', { family: t(`family.${family}`) }) },
        ...AUDIT_ACTIONS.filter((a) => a.startsWith(`${family}.`)).map((a) => ({ value: a, label: text.actionLabel(a) })),
      ],
    })),
  ];

  return (
    <Form form={form} layout="inline" className="mg-audit-filters" initialValues={toForm(initial)} onFinish={submit}>
      <Form.Item name="range">
        <DatePicker.RangePicker
          showTime
          allowEmpty={[true, true]}
          format={wide ? 'YYYY-MM-DD HH:mm' : 'MM-DD HH:mm'}
          aria-label={t('filter.range')}
          placeholder={[t('filter.start'), t('filter.end')]}
          className="mg-audit-range"
        />
      </Form.Item>
      <Form.Item name="actor">
        <Input allowClear placeholder={t('filter.actor')} aria-label={t('filter.actor')} className="mg-audit-input" />
      </Form.Item>
      <Form.Item name="action">
        <Select showSearch={{ optionFilterProp: 'label' }} aria-label={t('filter.action')} className="mg-audit-action" options={actionOptions} />
      </Form.Item>
      <Form.Item name="targetType">
        <Select
          aria-label={t('filter.targetType')}
          className="mg-audit-select"
          options={[{ value: '', label: t('filter.allTargets') }, ...AUDIT_TARGETS.map((x) => ({ value: x, label: text.targetTypeLabel(x) }))]}
        />
      </Form.Item>
      <Form.Item name="target">
        <Input allowClear placeholder={t('filter.target')} aria-label={t('filter.target')} className="mg-audit-input" />
      </Form.Item>
      <Form.Item name="result">
        <Select
          aria-label={t('filter.result')}
          className="mg-audit-select"
          options={[
            { value: '', label: t('filter.allResults') },
            { value: '1', label: t('result.success') },
            { value: '0', label: t('result.failure') },
          ]}
        />
      </Form.Item>
      <Form.Item>
        <Button type="primary" htmlType="submit" icon={<SearchOutlined aria-hidden />} loading={loading}>
          {t('filter.submit')}
        </Button>
      </Form.Item>
      <Form.Item>
        <Button onClick={reset}>{t('filter.reset')}</Button>
      </Form.Item>
    </Form>
  );
}
