import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../lib/clipboard';
import { showError, showSuccess } from '../../lib/feedback';
import { getPageSize, setPageSize } from '../../lib/storage';
import {
  deleteInvalidRedemptions,
  deleteRedemption,
  fetchRedemptions,
  keysText,
  redemptionKeys,
  setRedemptionStatus,
  type Redemption,
  type RedemptionQuery,
} from './api';
import { CreatedKeysModal } from './components/created-keys-modal';
import { RedemptionDrawer } from './components/redemption-drawer';
import { RedemptionTable } from './components/redemption-table';
import { RedemptionToolbar } from './components/redemption-toolbar';
import './redemption.css';

/** Redemption codes (spec screen 9, admin). */
export default function RedemptionPage() {
  const { t } = useTranslation('redemption');
  const queryClient = useQueryClient();
  const [query, setQuery] = useState<RedemptionQuery>(() => ({ keyword: '', page: 1, pageSize: getPageSize() }));
  const [selected, setSelected] = useState<number[]>([]);
  const [drawer, setDrawer] = useState<{ open: boolean; id: number | null }>({ open: false, id: null });
  const [created, setCreated] = useState<{ name: string; keys: string[] } | null>(null);

  const list = useQuery({ queryKey: redemptionKeys.list(query), queryFn: () => fetchRedemptions(query), placeholderData: keepPreviousData });
  const codes = list.data?.items ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: redemptionKeys.all });

  const toggle = useMutation({
    mutationFn: ({ code, status }: { code: Redemption; status: number }) => setRedemptionStatus(code.id, status),
    onSuccess: () => showSuccess(t('action.done')),
    onSettled: () => refresh(),
  });
  const remove = useMutation({
    mutationFn: (code: Redemption) => deleteRedemption(code.id),
    onSuccess: (_, code) => {
      showSuccess(t('action.deleted'));
      setSelected((keys) => keys.filter((key) => key !== code.id));
    },
    onSettled: () => refresh(),
  });
  const removeInvalid = useMutation({
    mutationFn: deleteInvalidRedemptions,
    onSuccess: (count) => {
      showSuccess(t('deleteInvalid.done', { count }));
      setSelected([]);
    },
    onSettled: () => refresh(),
  });

  const copySelected = () => {
    const chosen = codes.filter((code) => selected.includes(code.id));
    if (chosen.length === 0) {
      showError(t('selectAtLeastOne'));
      return;
    }
    void copyText(keysText(chosen.map((code) => code.key)), t('copiedMany', { count: chosen.length }));
  };

  const busyId = toggle.isPending ? (toggle.variables?.code.id ?? null) : remove.isPending ? (remove.variables?.id ?? null) : null;

  return (
    <Card title={t('title')} className="mg-page-card">
      <RedemptionToolbar
        onSearch={(keyword) => {
          setSelected([]);
          setQuery((old) => ({ ...old, keyword, page: 1 }));
        }}
        onAdd={() => setDrawer({ open: true, id: null })}
        onCopySelected={copySelected}
        onDeleteInvalid={() => removeInvalid.mutate()}
        deletingInvalid={removeInvalid.isPending}
      />
      <RedemptionTable
        codes={codes}
        loading={list.isFetching}
        page={list.data?.page ?? query.page}
        pageSize={query.pageSize}
        total={list.data?.total ?? 0}
        selectedKeys={selected}
        busyId={busyId}
        onSelect={setSelected}
        onPageChange={(page, pageSize) => {
          if (pageSize !== query.pageSize) setPageSize(pageSize);
          setSelected([]);
          setQuery((old) => ({ ...old, page: pageSize !== old.pageSize ? 1 : page, pageSize }));
        }}
        onCopy={(code) => void copyText(code.key, t('copied'))}
        onToggle={(code, status) => toggle.mutate({ code, status })}
        onEdit={(code) => setDrawer({ open: true, id: code.id })}
        onDelete={(code) => remove.mutate(code)}
      />
      <RedemptionDrawer
        open={drawer.open}
        codeId={drawer.id}
        onClose={() => setDrawer((old) => ({ ...old, open: false }))}
        onCreated={(name, keys) => setCreated({ name, keys })}
      />
      <CreatedKeysModal created={created} onClose={() => setCreated(null)} />
    </Card>
  );
}
