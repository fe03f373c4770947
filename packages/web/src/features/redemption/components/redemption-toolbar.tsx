import { CopyOutlined, DeleteOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Form, Input, Popconfirm, Space } from 'antd';
import { useTranslation } from 'react-i18next';

interface RedemptionToolbarProps {
  onSearch: (keyword: string) => void;
  onAdd: () => void;
  onCopySelected: () => void;
  onDeleteInvalid: () => void;
  deletingInvalid: boolean;
}

export function RedemptionToolbar(props: RedemptionToolbarProps) {
  const { t } = useTranslation('redemption');
  return (
    <div className="mg-toolbar">
      <Form layout="inline" className="mg-toolbar-form" onFinish={(values: { keyword?: string }) => props.onSearch((values.keyword ?? '').trim())}>
        <Form.Item name="keyword">
          <Input allowClear prefix={<SearchOutlined />} placeholder={t('search.keyword')} aria-label={t('search.keyword')} className="mg-search-input" />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit">
            {t('search.submit')}
          </Button>
        </Form.Item>
      </Form>
      <Space wrap>
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={props.onAdd}>
          {t('add')}
        </Button>
        <Button icon={<CopyOutlined aria-hidden />} onClick={props.onCopySelected}>
          {t('copySelected')}
        </Button>
        <Popconfirm
          title={t('deleteInvalid.title')}
          description={t('deleteInvalid.warning')}
          okText={t('common:action.delete')}
          okButtonProps={{ danger: true }}
          cancelText={t('common:action.cancel')}
          onConfirm={props.onDeleteInvalid}
        >
          <Button danger icon={<DeleteOutlined aria-hidden />} loading={props.deletingInvalid}>
            {t('deleteInvalid.button')}
          </Button>
        </Popconfirm>
      </Space>
    </div>
  );
}
