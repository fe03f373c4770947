import { CopyOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Form, Input, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TokenSearchQuery } from '../api';

interface TokenToolbarProps {
  onSearch: (query: TokenSearchQuery) => void;
  onAdd: () => void;
  onCopySelected: () => void;
}

export function TokenToolbar({ onSearch, onAdd, onCopySelected }: TokenToolbarProps) {
  const { t } = useTranslation('token');
  return (
    <div className="mg-toolbar">
      <Form
        layout="inline"
        className="mg-toolbar-form"
        onFinish={(values: Partial<TokenSearchQuery>) =>
          onSearch({ keyword: (values.keyword ?? '').trim(), token: (values.token ?? '').trim() })
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
        <Form.Item name="token">
          <Input allowClear placeholder={t('search.token')} aria-label={t('search.token')} className="mg-search-input" />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit">
            {t('search.submit')}
          </Button>
        </Form.Item>
      </Form>
      <Space wrap>
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={onAdd}>
          {t('add')}
        </Button>
        <Button icon={<CopyOutlined aria-hidden />} onClick={onCopySelected}>
          {t('copySelected')}
        </Button>
      </Space>
    </div>
  );
}
