import { SearchOutlined } from '@ant-design/icons';
import { Button, DatePicker, Form, Grid, Input, Select } from 'antd';
import dayjs, { type Dayjs } from '../../../lib/dayjs';
import { useTranslation } from 'react-i18next';
import { LOG_TYPE_FILTERS } from '@modelgate/shared';
import type { LogFilters } from '../api';

interface LogFiltersFormProps {
  admin: boolean;
  initial: LogFilters;
  loading: boolean;
  onApply: (filters: LogFilters) => void;
}

interface FormValues {
  range: [Dayjs | null, Dayjs | null] | null;
  tokenName: string;
  modelName: string;
  username: string;
  channel: string;
  type: number;
}

export function LogFiltersForm({ admin, initial, loading, onApply }: LogFiltersFormProps) {
  const { t } = useTranslation('log');
  // Phones cannot fit two full date-times side by side.
  const wide = Grid.useBreakpoint().sm !== false;
  const initialValues: FormValues = {
    range: [dayjs.unix(initial.start), dayjs.unix(initial.end)],
    tokenName: initial.tokenName,
    modelName: initial.modelName,
    username: initial.username,
    channel: initial.channel,
    type: initial.type,
  };
  const submit = (values: FormValues) => {
    const [start, end] = values.range ?? [null, null];
    onApply({
      start: start ? start.unix() : 0,
      end: end ? end.unix() : 0,
      tokenName: (values.tokenName ?? '').trim(),
      modelName: (values.modelName ?? '').trim(),
      username: admin ? (values.username ?? '').trim() : '',
      channel: admin ? String(values.channel ?? '').trim() : '',
      group: '',
      type: values.type ?? 0,
    });
  };
  const text = (name: keyof FormValues, key: string) => (
    <Form.Item name={name}>
      <Input allowClear placeholder={t(key)} aria-label={t(key)} className="mg-log-input" />
    </Form.Item>
  );

  return (
    <Form layout="inline" className="mg-log-filters" initialValues={initialValues} onFinish={submit}>
      <Form.Item name="range">
        <DatePicker.RangePicker
          showTime
          allowEmpty={[true, true]}
          format={wide ? 'YYYY-MM-DD HH:mm:ss' : 'MM-DD HH:mm'}
          aria-label={t('filter.range')}
          placeholder={[t('filter.start'), t('filter.end')]}
          className="mg-log-range"
        />
      </Form.Item>
      {text('tokenName', 'filter.tokenName')}
      {text('modelName', 'filter.modelName')}
      {admin && text('username', 'filter.username')}
      {admin && text('channel', 'filter.channel')}
      <Form.Item name="type">
        <Select
          aria-label={t('filter.type')}
          className="mg-log-type"
          options={LOG_TYPE_FILTERS.map((type) => ({ value: type, label: t(`type.${type}`) }))}
        />
      </Form.Item>
      <Form.Item>
        <Button type="primary" htmlType="submit" icon={<SearchOutlined aria-hidden />} loading={loading}>
          {t('filter.submit')}
        </Button>
      </Form.Item>
    </Form>
  );
}
