import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Form, Input, Select, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useGroups } from '../../../lib/groups';

export interface UserFilterValues {
  keyword: string;
  group: string;
}

interface UserFiltersProps {
  onSearch: (values: UserFilterValues) => void;
  onAdd: () => void;
}

export function UserFilters({ onSearch, onAdd }: UserFiltersProps) {
  const { t } = useTranslation('user');
  const groups = useGroups();

  return (
    <div className="mg-toolbar">
      <Form
        layout="inline"
        className="mg-toolbar-form"
        onFinish={(values: Partial<UserFilterValues>) =>
          onSearch({ keyword: (values.keyword ?? '').trim(), group: values.group ?? '' })
        }
      >
        <Form.Item name="keyword">
          <Input
            allowClear
            prefix={<SearchOutlined />}
            placeholder={t('search.keyword')}
            aria-label={t('search.keyword')}
            className="mg-search-input"
          />
        </Form.Item>
        <Form.Item name="group">
          <Select
            allowClear
            placeholder={t('search.group')}
            aria-label={t('search.group')}
            loading={groups.isPending}
            options={(groups.data ?? []).map((group) => ({ value: group, label: group }))}
            notFoundContent={t('search.noGroups')}
            className="mg-group-select"
          />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit">
            {t('search.submit')}
          </Button>
        </Form.Item>
      </Form>
      <Space>
        <Button icon={<PlusOutlined aria-hidden />} onClick={onAdd}>
          {t('add.button')}
        </Button>
      </Space>
    </div>
  );
}
