import { SearchOutlined } from '@ant-design/icons';
import { Button, DatePicker, Form, Grid, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Dayjs } from '../lib/dayjs';

/** The filters of both task lists; times are picked as dates and converted by each screen (ms or s). */
export interface TaskFilterValues {
  start: Dayjs | null;
  end: Dayjs | null;
  channel: string;
  id: string;
}

interface FormValues {
  range: [Dayjs | null, Dayjs | null] | null;
  channel: string;
  id: string;
}

export function TaskFilters({ admin, idLabel, initial, loading, onApply }: { admin: boolean; idLabel: string; initial: TaskFilterValues; loading: boolean; onApply: (v: TaskFilterValues) => void }) {
  const { t } = useTranslation('task');
  const wide = Grid.useBreakpoint().sm !== false;
  const submit = (v: FormValues) => {
    const [start, end] = v.range ?? [null, null];
    onApply({ start, end, channel: admin ? String(v.channel ?? '').trim() : '', id: String(v.id ?? '').trim() });
  };
  return (
    <Form
      layout="inline"
      className="mg-task-filters"
      initialValues={{ range: [initial.start, initial.end], channel: initial.channel, id: initial.id } satisfies FormValues}
      onFinish={submit}
    >
      <Form.Item name="range">
        <DatePicker.RangePicker
          showTime
          allowEmpty={[true, true]}
          format={wide ? 'YYYY-MM-DD HH:mm:ss' : 'MM-DD HH:mm'}
          aria-label={t('filter.range')}
          placeholder={[t('filter.start'), t('filter.end')]}
        />
      </Form.Item>
      {admin && (
        <Form.Item name="channel">
          <Input allowClear placeholder={t('filter.channel')} aria-label={t('filter.channel')} className="mg-task-input" />
        </Form.Item>
      )}
      <Form.Item name="id">
        <Input allowClear placeholder={idLabel} aria-label={idLabel} className="mg-task-input" />
      </Form.Item>
      <Form.Item>
        <Button type="primary" htmlType="submit" icon={<SearchOutlined aria-hidden />} loading={loading}>
          {t('filter.submit')}
        </Button>
      </Form.Item>
    </Form>
  );
}
