import { Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { BatchTagModal } from './components/batch-tag-modal';
import { ChannelDrawer } from './components/channel-drawer';
import { ChannelTable } from './components/channel-table';
import { ChannelToolbar } from './components/channel-toolbar';
import { EditTagModal } from './components/edit-tag-modal';
import { useChannelActions } from './use-channel-actions';
import { useChannelList } from './use-channel-list';
import './channel.css';

/**
 * Spec screen 7. The drawer follows the route: /channel/add creates, /channel/edit/:id edits;
 * closing it returns to /channel. Copy happens on the server (it keeps the stored key).
 */
export default function ChannelPage() {
  const { t } = useTranslation('channel');
  const navigate = useNavigate();
  const location = useLocation();
  const params = useParams();
  const list = useChannelList();
  const actions = useChannelActions(list.selected, () => list.setSelected([]));
  const [editingTag, setEditingTag] = useState<string | null>(null);
  const [taggingSelection, setTaggingSelection] = useState(false);

  const editId = params.id ? Number(params.id) : null;
  const creating = location.pathname.replace(/\/+$/, '') === '/channel/add';

  return (
    <Card title={t('title')} className="mg-page-card">
      <ChannelToolbar
        idSort={list.query.idSort}
        tagMode={list.query.tagMode}
        batchMode={list.selected !== null}
        selectedCount={list.selected?.length ?? 0}
        busy={actions.busyBulk}
        onSearch={list.setSearch}
        onAdd={() => void navigate('/channel/add')}
        onTestAll={() => actions.bulk('testAll')}
        onUpdateBalances={() => actions.bulk('updateBalances')}
        onDeleteDisabled={() => actions.bulk('deleteDisabled')}
        onFix={() => actions.bulk('fix')}
        onRefresh={() => void list.refresh()}
        onIdSort={list.setIdSort}
        onTagMode={list.setTagMode}
        onBatchMode={list.setBatchMode}
        onDeleteSelected={() => actions.bulk('deleteSelected')}
        onTagSelected={() => setTaggingSelection(actions.bulk('tagSelected'))}
      />
      <ChannelTable
        rows={list.rows}
        loading={list.loading}
        pagination={list.pagination}
        selection={list.selected ? { keys: list.selected, onChange: list.setSelected } : null}
        testingId={actions.testingId}
        busyId={actions.busyId}
        balanceId={actions.balanceId}
        busyTag={actions.busyTag}
        onTest={actions.test}
        onToggle={actions.toggle}
        onEdit={(channel) => void navigate(`/channel/edit/${channel.id}`)}
        onCopy={actions.copy}
        onDelete={actions.remove}
        onPatch={actions.patch}
        onBalance={actions.balance}
        onTagStatus={actions.tagStatus}
        onTagEdit={setEditingTag}
        onTagPatch={actions.tagPatch}
      />
      <ChannelDrawer
        // A fresh form per opening: antd keeps a form's values after its fields unmount, so a
        // reused instance would carry the last channel's values into the next create.
        key={creating || editId !== null ? location.key : 'closed'}
        open={creating || editId !== null}
        channelId={editId}
        onClose={() => void navigate('/channel')}
      />
      <BatchTagModal
        open={taggingSelection}
        count={list.selected?.length ?? 0}
        onClose={() => setTaggingSelection(false)}
        onSave={(tag) => {
          actions.batchTag(tag);
          setTaggingSelection(false);
        }}
      />
      <EditTagModal tag={editingTag} onClose={() => setEditingTag(null)} onSave={actions.tagPatch} />
    </Card>
  );
}
