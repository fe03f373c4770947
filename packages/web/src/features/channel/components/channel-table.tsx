import { Button, Table, Tag, Tooltip, Typography, type TableProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { GroupTag } from '../../../components/user-tags';
import { ChannelStatus, formatQuota } from '@modelgate/shared';
import { PAGE_SIZE_OPTIONS } from '../../../lib/storage';
import { splitList, type Channel } from '../api';
import { isTagRow, type ChannelRow, type TagGroupRow } from '../channel-status';
import { ChannelStatusTag, NumberCell, ResponseTimeTag, TypeTag } from './channel-cells';
import { ChannelRowActions, TagRowActions, type ChannelRowHandlers } from './channel-row-actions';
import { ListEmpty } from '../../../components/list-empty';
import { LIST_TABLE_SCROLL } from '../../../lib/table';

export interface ChannelTableHandlers extends ChannelRowHandlers {
  onPatch: (channel: Channel, patch: { priority?: number; weight?: number }) => void;
  onBalance: (channel: Channel) => void;
  onTagStatus: (tag: string, enabled: boolean) => void;
  onTagEdit: (tag: string) => void;
  onTagPatch: (tag: string, patch: { priority?: number; weight?: number }) => void;
}

interface ChannelTableProps extends ChannelTableHandlers {
  rows: ChannelRow[];
  loading: boolean;
  pagination: TableProps<ChannelRow>['pagination'];
  selection: { keys: number[]; onChange: (keys: number[]) => void } | null;
  testingId: number | null;
  busyId: number | null;
  balanceId: number | null;
  busyTag: string | null;
}

const rowKey = (row: ChannelRow) => (isTagRow(row) ? `tag:${row.tag}` : row.id);

function tagGroups(row: TagGroupRow): string[] {
  return [...new Set(row.children.flatMap((channel) => splitList(channel.group)))];
}

export function ChannelTable(props: ChannelTableProps) {
  const { t } = useTranslation('channel');
  const { quotaDisplay } = useStatus();
  // Tag groups start expanded; the operator may fold some.
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const expanded = props.rows.filter((row) => isTagRow(row) && !folded.has(row.tag)).map(rowKey);

  const columns: TableProps<ChannelRow>['columns'] = [
    { title: t('column.id'), key: 'id', width: 64, render: (_, row) => (isTagRow(row) ? '' : row.id) },
    {
      title: t('column.name'),
      key: 'name',
      render: (_, row) =>
        isTagRow(row) ? (
          <span className="mg-tag-name">
            <Tag color="blue">{t('tag.label')}</Tag>
            <Typography.Text strong>{row.tag}</Typography.Text>
            <Typography.Text type="secondary" className="mg-small">
              {t('tag.count', { count: row.children.length })}
            </Typography.Text>
          </span>
        ) : (
          <div>
            <Typography.Text strong>{row.name}</Typography.Text>
            {row.tag && (
              <div>
                <Typography.Text type="secondary" className="mg-small">
                  {t('column.tagValue', { tag: row.tag })}
                </Typography.Text>
              </div>
            )}
          </div>
        ),
    },
    {
      title: t('column.group'),
      key: 'group',
      render: (_, row) => (
        <div className="mg-tag-stack">
          {(isTagRow(row) ? tagGroups(row) : splitList(row.group)).map((group) => (
            <GroupTag key={group} group={group} />
          ))}
        </div>
      ),
    },
    {
      title: t('column.type'),
      key: 'type',
      render: (_, row) =>
        isTagRow(row) ? (
          <div className="mg-tag-stack">
            {[...new Set(row.children.map((channel) => channel.type))].map((type) => (
              <TypeTag key={type} type={type} />
            ))}
          </div>
        ) : (
          <TypeTag type={row.type} />
        ),
    },
    {
      title: t('column.status'),
      key: 'status',
      render: (_, row) =>
        isTagRow(row) ? (
          <Tag>
            {t('tag.enabledCount', {
              enabled: row.children.filter((channel) => channel.status === ChannelStatus.Enabled).length,
              total: row.children.length,
            })}
          </Tag>
        ) : (
          <ChannelStatusTag channel={row} />
        ),
    },
    {
      title: t('column.responseTime'),
      key: 'response',
      render: (_, row) => (isTagRow(row) ? null : <ResponseTimeTag channel={row} />),
    },
    {
      title: t('column.usedBalance'),
      key: 'balance',
      render: (_, row) => {
        if (isTagRow(row)) {
          const used = row.children.reduce((sum, channel) => sum + (Number(channel.used_quota) || 0), 0);
          return <Tag color="blue">{t('column.usedValue', { value: formatQuota(used, quotaDisplay) })}</Tag>;
        }
        return (
          <div className="mg-tag-column">
            <Tooltip title={t('column.used')}>
              <Tag color="blue">{t('column.usedValue', { value: formatQuota(row.used_quota, quotaDisplay) })}</Tag>
            </Tooltip>
            <Tooltip title={t('action.updateBalance')}>
              <Button
                size="small"
                type="dashed"
                className="mg-balance-button"
                loading={props.balanceId === row.id}
                onClick={() => props.onBalance(row)}
              >
                {t('column.balanceValue', { value: (Number(row.balance) || 0).toFixed(2) })}
              </Button>
            </Tooltip>
          </div>
        );
      },
    },
    {
      title: t('column.priority'),
      key: 'priority',
      render: (_, row) => {
        const value = isTagRow(row) ? (row.children[0]?.priority ?? 0) : row.priority;
        return (
          <NumberCell
            value={value}
            min={-999}
            label={t('column.priority')}
            onCommit={(priority) =>
              isTagRow(row) ? props.onTagPatch(row.tag, { priority }) : props.onPatch(row, { priority })
            }
          />
        );
      },
    },
    {
      title: t('column.weight'),
      key: 'weight',
      render: (_, row) => {
        const value = isTagRow(row) ? (row.children[0]?.weight ?? 0) : row.weight;
        return (
          <NumberCell
            value={value}
            min={0}
            label={t('column.weight')}
            onCommit={(weight) => (isTagRow(row) ? props.onTagPatch(row.tag, { weight }) : props.onPatch(row, { weight }))}
          />
        );
      },
    },
    {
      title: t('column.actions'),
      key: 'actions',
      render: (_, row) =>
        isTagRow(row) ? (
          <TagRowActions
            tag={row.tag}
            busy={props.busyTag === row.tag}
            onTagStatus={props.onTagStatus}
            onTagEdit={props.onTagEdit}
          />
        ) : (
          <ChannelRowActions
            channel={row}
            testing={props.testingId === row.id}
            busy={props.busyId === row.id}
            onTest={props.onTest}
            onToggle={props.onToggle}
            onEdit={props.onEdit}
            onCopy={props.onCopy}
            onDelete={props.onDelete}
          />
        ),
    },
  ];

  return (
    <Table<ChannelRow>
      rowKey={rowKey}
      columns={columns}
      dataSource={props.rows}
      loading={props.loading}
      size="middle"
      scroll={LIST_TABLE_SCROLL}
      expandable={{
        indentSize: 12,
        expandedRowKeys: expanded,
        onExpand: (open, row) => {
          if (!isTagRow(row)) return;
          setFolded((old) => {
            const next = new Set(old);
            if (open) next.delete(row.tag);
            else next.add(row.tag);
            return next;
          });
        },
      }}
      locale={{ emptyText: <ListEmpty description={t('empty')} /> }}
      rowSelection={
        props.selection
          ? {
              selectedRowKeys: props.selection.keys,
              checkStrictly: false,
              onChange: (_, rows) =>
                props.selection?.onChange(rows.filter((row) => row && !isTagRow(row)).map((row) => (row as Channel).id)),
            }
          : undefined
      }
      pagination={
        props.pagination && {
          showSizeChanger: true,
          pageSizeOptions: PAGE_SIZE_OPTIONS.map(String),
          ...props.pagination,
        }
      }
    />
  );
}
