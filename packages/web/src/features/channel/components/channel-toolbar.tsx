import { PlusOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Form, Input, Popconfirm, Select, Space, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { useGroups } from '../../../lib/groups';
import type { ChannelSearch } from '../api';

export interface ChannelToolbarProps {
  idSort: boolean;
  tagMode: boolean;
  batchMode: boolean;
  busy: string | null;
  selectedCount: number;
  onSearch: (search: ChannelSearch) => void;
  onAdd: () => void;
  onTestAll: () => void;
  onUpdateBalances: () => void;
  onDeleteDisabled: () => void;
  onRefresh: () => void;
  onFix: () => void;
  onIdSort: (value: boolean) => void;
  onTagMode: (value: boolean) => void;
  onBatchMode: (value: boolean) => void;
  onDeleteSelected: () => void;
  onTagSelected: () => void;
}

function SearchForm({ onSearch }: Pick<ChannelToolbarProps, 'onSearch'>) {
  const { t } = useTranslation('channel');
  const groups = useGroups();
  return (
    <Form
      layout="inline"
      className="mg-toolbar-form"
      onFinish={(values: Partial<ChannelSearch>) =>
        onSearch({
          keyword: (values.keyword ?? '').trim(),
          group: values.group ?? '',
          model: (values.model ?? '').trim(),
        })
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
      <Form.Item name="model">
        <Input allowClear placeholder={t('search.model')} aria-label={t('search.model')} className="mg-search-input" />
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
  );
}

function Toggle({ label, checked, onChange }: { label: string; checked: boolean; onChange: (value: boolean) => void }) {
  return (
    <label className="mg-inline-switch">
      <Switch size="small" checked={checked} onChange={onChange} aria-label={label} />
      <span>{label}</span>
    </label>
  );
}

export function ChannelToolbar(props: ChannelToolbarProps) {
  const { t } = useTranslation('channel');
  const confirm = (key: string, title: string, onConfirm: () => void, danger = false) => (
    <Popconfirm
      title={title}
      okText={t('action.confirm')}
      cancelText={t('common:action.cancel')}
      okButtonProps={{ danger }}
      onConfirm={onConfirm}
    >
      <Button danger={danger} loading={props.busy === key}>
        {t(`toolbar.${key}`)}
      </Button>
    </Popconfirm>
  );
  return (
    <div className="mg-channel-toolbar">
      <SearchForm onSearch={props.onSearch} />
      <Space wrap className="mg-channel-actions">
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={props.onAdd}>
          {t('toolbar.add')}
        </Button>
        {confirm('testAll', t('toolbar.testAllConfirm'), props.onTestAll)}
        {confirm('updateBalances', t('toolbar.updateBalancesConfirm'), props.onUpdateBalances)}
        {confirm('deleteDisabled', t('toolbar.deleteDisabledConfirm'), props.onDeleteDisabled, true)}
        {confirm('fix', t('toolbar.fixConfirm'), props.onFix)}
        <Button icon={<ReloadOutlined aria-hidden />} onClick={props.onRefresh}>
          {t('toolbar.refresh')}
        </Button>
      </Space>
      <Space wrap size={[16, 8]} className="mg-channel-switches">
        <Toggle label={t('toolbar.idSort')} checked={props.idSort} onChange={props.onIdSort} />
        <Toggle label={t('toolbar.tagMode')} checked={props.tagMode} onChange={props.onTagMode} />
        <Toggle label={t('toolbar.batchMode')} checked={props.batchMode} onChange={props.onBatchMode} />
        {props.batchMode && (
          <Popconfirm
            disabled={props.selectedCount === 0}
            title={t('toolbar.deleteSelectedConfirm', { count: props.selectedCount })}
            okText={t('common:action.delete')}
            cancelText={t('common:action.cancel')}
            okButtonProps={{ danger: true }}
            onConfirm={props.onDeleteSelected}
          >
            <Button
              danger
              size="small"
              loading={props.busy === 'deleteSelected'}
              onClick={() => {
                // Nothing selected: say so instead of asking to confirm nothing.
                if (props.selectedCount === 0) props.onDeleteSelected();
              }}
            >
              {t('toolbar.deleteSelected')}
            </Button>
          </Popconfirm>
        )}
        {props.batchMode && (
          <Button size="small" onClick={props.onTagSelected}>
            {t('toolbar.tagSelected')}
          </Button>
        )}
      </Space>
    </div>
  );
}
