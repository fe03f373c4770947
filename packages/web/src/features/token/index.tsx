import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../lib/clipboard';
import { showError, showSuccess } from '../../lib/feedback';
import { getPageSize, setPageSize } from '../../lib/storage';
import {
  deleteToken,
  fetchTokens,
  formatTokensForCopy,
  fullKey,
  listStyleTotal,
  searchTokens,
  setTokenStatus,
  tokenKeys,
  type Token,
  type TokenListQuery,
  type TokenSearchQuery,
} from './api';
import { TokenDrawer } from './components/token-drawer';
import { TokenTable } from './components/token-table';
import { TokenToolbar } from './components/token-toolbar';

export default function TokenPage() {
  const { t } = useTranslation('token');
  const queryClient = useQueryClient();
  const [listQuery, setListQuery] = useState<TokenListQuery>(() => ({ page: 1, size: getPageSize() }));
  const [search, setSearch] = useState<TokenSearchQuery | null>(null);
  const [selected, setSelected] = useState<number[]>([]);
  // `opened` counts openings: each opening mounts a fresh drawer, so its form cannot carry the
  // previous token's name or unlimited switch into the next one.
  const [drawer, setDrawer] = useState<{ open: boolean; id: number | null; opened: number }>({ open: false, id: null, opened: 0 });

  const list = useQuery({
    queryKey: tokenKeys.list(listQuery),
    queryFn: () => fetchTokens(listQuery),
    enabled: !search,
    placeholderData: keepPreviousData,
  });
  const found = useQuery({
    queryKey: tokenKeys.search(search ?? { keyword: '', token: '' }),
    queryFn: () => searchTokens(search!),
    enabled: !!search,
  });
  const active = search ? found : list;
  const tokens = active.data ?? [];

  // Deleting the only token of the last page leaves an empty page: step back to one with rows. Set
  // while rendering (not in an effect); the next page's placeholder data makes the condition false.
  if (!search && list.isSuccess && !list.isPlaceholderData && tokens.length === 0 && listQuery.page > 1) {
    setListQuery((old) => ({ ...old, page: old.page - 1 }));
  }

  const refresh = () => queryClient.invalidateQueries({ queryKey: tokenKeys.all });

  const toggle = useMutation({
    mutationFn: ({ token, status }: { token: Token; status: number }) => setTokenStatus(token.id, status),
    onSuccess: () => showSuccess(t('action.done')),
    onSettled: () => refresh(),
  });
  const remove = useMutation({
    mutationFn: (token: Token) => deleteToken(token.id),
    onSuccess: (_, token) => {
      showSuccess(t('action.deleted'));
      setSelected((keys) => keys.filter((key) => key !== token.id));
    },
    onSettled: () => refresh(),
  });

  const copySelected = () => {
    const chosen = tokens.filter((token) => selected.includes(token.id));
    if (chosen.length === 0) {
      showError(t('selectAtLeastOne'));
      return;
    }
    void copyText(formatTokensForCopy(chosen), t('copiedMany', { count: chosen.length }));
  };

  const busyId = toggle.isPending
    ? (toggle.variables?.token.id ?? null)
    : remove.isPending
      ? (remove.variables?.id ?? null)
      : null;

  return (
    <Card title={t('title')} className="mg-page-card">
      <TokenToolbar
        onSearch={(query) => {
          setSelected([]);
          setSearch(query.keyword || query.token ? query : null);
        }}
        onAdd={() => setDrawer((old) => ({ open: true, id: null, opened: old.opened + 1 }))}
        onCopySelected={copySelected}
      />
      <TokenTable
        tokens={tokens}
        loading={active.isFetching}
        selectedKeys={selected}
        busyId={busyId}
        onSelect={setSelected}
        onCopy={(token) => void copyText(fullKey(token), t('copied'))}
        onToggle={(token, status) => toggle.mutate({ token, status })}
        onEdit={(token) => setDrawer((old) => ({ open: true, id: token.id, opened: old.opened + 1 }))}
        onDelete={(token) => remove.mutate(token)}
        pagination={
          search
            ? { defaultPageSize: listQuery.size }
            : {
                current: listQuery.page,
                pageSize: listQuery.size,
                total: listStyleTotal(listQuery.page, listQuery.size, tokens.length),
                onChange: (page, size) => {
                  if (size !== listQuery.size) setPageSize(size);
                  setSelected([]);
                  setListQuery({ page: size !== listQuery.size ? 1 : page, size });
                },
              }
        }
      />
      <TokenDrawer
        key={drawer.opened}
        open={drawer.open}
        tokenId={drawer.id}
        onClose={() => setDrawer((old) => ({ ...old, open: false }))}
      />
    </Card>
  );
}
