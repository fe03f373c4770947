import { Button, DatePicker, Form, Input, Segmented } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from '../../../lib/dayjs';
import { GRANULARITIES, type Granularity } from '../aggregate';
import type { DataQuery } from '../api';

interface Props {
  admin: boolean;
  initial: DataQuery;
  loading: boolean;
  onApply: (q: DataQuery) => void;
  onGranularity: (g: Granularity) => void;
}

/** Time range, user (admins) and granularity; granularity regroups the loaded rows without a new request. */
export function DetailFilters({ admin, initial, loading, onApply, onGranularity }: Props) {
  const { t } = useTranslation('detail');
  const [range, setRange] = useState<[Dayjs, Dayjs]>([dayjs.unix(initial.start), dayjs.unix(initial.end)]);
  const [username, setUsername] = useState(initial.username);
  return (
    <Form layout="inline" className="mg-detail-filters" component="div">
      <Form.Item label={t('filter.range')}>
        <DatePicker.RangePicker
          showTime={{ format: 'HH:mm' }}
          format="YYYY-MM-DD HH:mm"
          value={range}
          allowClear={false}
          onChange={(v) => v?.[0] && v[1] && setRange([v[0], v[1]])}
        />
      </Form.Item>
      {admin && (
        <Form.Item label={t('filter.username')} htmlFor="detail-username">
          <Input id="detail-username" allowClear placeholder={t('filter.usernamePlaceholder')} value={username} onChange={(e) => setUsername(e.target.value)} />
        </Form.Item>
      )}
      <Form.Item label={t('filter.granularity')}>
        <Segmented<Granularity>
          value={initial.granularity}
          options={GRANULARITIES.map((g) => ({ value: g, label: t(`granularity.${g}`) }))}
          onChange={onGranularity}
        />
      </Form.Item>
      <Form.Item>
        <Button type="primary" loading={loading} onClick={() => onApply({ ...initial, start: range[0].unix(), end: range[1].unix(), username: username.trim() })}>
          {t('filter.query')}
        </Button>
      </Form.Item>
    </Form>
  );
}
