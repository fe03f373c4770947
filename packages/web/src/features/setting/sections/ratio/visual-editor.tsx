import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Input, Popconfirm, Space, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OptionMap } from '../../../../lib/options';
import { RatioRowModal } from './row-modal';
import { prettyTables, rowsFromTables, tablesFromRows, type RatioRow, type RatioTables } from './ratio-tables';
import { useSaveTables } from './save-tables';

interface Props {
  options: OptionMap;
  tables: RatioTables;
  /** A model to add (from the unpriced list): opens the add dialog with its name. */
  adding: string | null;
  onAdded: () => void;
}

const empty = (name = ''): RatioRow => ({ name, price: '', ratio: '', completionRatio: '', cacheRatio: '', createCacheRatio: '' });

/** The "visual ratio" tab (spec §2.6, §9): one row per model, 10 per page, edited in a dialog and saved as the pricing JSON options. */
export function RatioVisualEditor({ options, tables, adding, onAdded }: Props) {
  const { t } = useTranslation('pricing');
  const [rows, setRows] = useState<RatioRow[]>(() => rowsFromTables(tables));
  const [dialog, setDialog] = useState<{ row: RatioRow; editing: boolean } | null>(null);
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const { save, saving } = useSaveTables(options);
  const taken = useMemo(() => new Set(rows.map((r) => r.name)), [rows]);
  const shown = rows.filter((r) => r.name.toLowerCase().includes(search.trim().toLowerCase()));
  const open = dialog ?? (adding !== null ? { row: empty(adding), editing: false } : null);

  const submit = (row: RatioRow) => {
    setRows((cur) => {
      const i = cur.findIndex((r) => r.name === row.name);
      if (i < 0) return [row, ...cur];
      return cur.map((r, j) => (j === i ? row : r));
    });
    if (!dialog?.editing) setPage(1);
    setDialog(null);
    onAdded();
  };

  const onSave = async () => {
    await save(prettyTables(tablesFromRows(rows)));
  };

  const cell = (v: string) => (v === '' ? <Typography.Text type="secondary">-</Typography.Text> : v);
  const columns: ColumnsType<RatioRow> = [
    { title: t('editor.name'), dataIndex: 'name', render: (name: string) => <Typography.Text code>{name}</Typography.Text> },
    { title: t('editor.price'), dataIndex: 'price', width: 112, render: cell },
    { title: t('editor.ratio'), dataIndex: 'ratio', width: 112, render: cell },
    { title: t('editor.completionRatio'), dataIndex: 'completionRatio', width: 112, render: cell },
    { title: t('editor.cacheRatio'), dataIndex: 'cacheRatio', width: 112, render: cell },
    { title: t('editor.createCacheRatio'), dataIndex: 'createCacheRatio', width: 112, render: cell },
    {
      title: t('editor.actions'),
      key: 'actions',
      width: 96,
      // Stays in view when a long model name makes the table scroll sideways (1366 px screens).
      fixed: 'right',
      render: (_, row) => (
        <Space size={4}>
          <Button size="small" type="text" icon={<EditOutlined />} aria-label={t('editor.edit', { name: row.name })} onClick={() => setDialog({ row, editing: true })} />
          <Popconfirm title={t('editor.deleteConfirm', { name: row.name })} okText={t('editor.confirm')} cancelText={t('editor.cancel')} onConfirm={() => setRows((cur) => cur.filter((r) => r.name !== row.name))}>
            <Button size="small" type="text" danger icon={<DeleteOutlined />} aria-label={t('editor.delete', { name: row.name })} />
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="ratio-visual-editor">
      <Space wrap className="mg-ratio-toolbar">
        <Button icon={<PlusOutlined />} onClick={() => setDialog({ row: empty(), editing: false })}>
          {t('editor.add')}
        </Button>
        <Input.Search allowClear placeholder={t('editor.search')} aria-label={t('editor.search')} value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} className="mg-ratio-search" />
        <Button type="primary" loading={saving} onClick={() => void onSave()}>
          {t('editor.saveVisual')}
        </Button>
      </Space>
      <Table<RatioRow>
        rowKey="name"
        size="small"
        columns={columns}
        dataSource={shown}
        pagination={{ current: page, pageSize: 10, showSizeChanger: false, onChange: setPage }}
        scroll={{ x: 'max-content' }}
      />
      <RatioRowModal row={open?.row ?? null} editing={open?.editing ?? false} taken={taken} onCancel={() => { setDialog(null); onAdded(); }} onSubmit={submit} />
    </div>
  );
}
