import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import i18n from '../../i18n';
import { showError } from '../../lib/feedback';
import { getPageSize, setPageSize } from '../../lib/storage';
import {
  channelKeys,
  fetchChannels,
  listStyleTotal,
  searchChannels,
  type ChannelListQuery,
  type ChannelSearch,
} from './api';
import { groupByTag } from './channel-status';

const ID_SORT_KEY = 'id-sort';

function readIdSort(): boolean {
  return localStorage.getItem(ID_SORT_KEY) === 'true';
}

/** List/search state of the channel screen: list-style paging, id sort (remembered), tag mode, batch selection. */
export function useChannelList() {
  const [query, setQuery] = useState<ChannelListQuery>(() => ({
    page: 1,
    pageSize: getPageSize(),
    idSort: readIdSort(),
    tagMode: false,
  }));
  const [search, setSearch] = useState<ChannelSearch | null>(null);
  /** null while batch mode is off. */
  const [selected, setSelected] = useState<number[] | null>(null);
  /** True while the toolbar's refresh runs: its failure is told as "refresh failed", not the server's text. */
  const quiet = useRef(false);

  const list = useQuery({
    queryKey: channelKeys.list(query),
    queryFn: () => fetchChannels(query, quiet.current),
    enabled: !search,
    placeholderData: keepPreviousData,
  });
  const found = useQuery({
    queryKey: channelKeys.search(search ?? { keyword: '', group: '', model: '' }, query.idSort, query.tagMode),
    queryFn: () => searchChannels(search!, query.idSort, query.tagMode, quiet.current),
    enabled: !!search,
  });
  const active = search ? found : list;
  const channels = active.data ?? [];

  // Deleting the last rows of a later page leaves it empty: step back to a page with rows. Set while
  // rendering (not in an effect) so the empty page is never shown; the next page's placeholder
  // data makes the condition false again.
  if (!search && list.isSuccess && !list.isPlaceholderData && channels.length === 0 && query.page > 1) {
    setQuery((old) => ({ ...old, page: old.page - 1 }));
  }

  const pagination = search
    ? { defaultPageSize: query.pageSize }
    : {
        current: query.page,
        pageSize: query.pageSize,
        // List style (console-api.md §5): no total; a full page means there may be a next one.
        total: listStyleTotal(query.page, query.pageSize, channels.length),
        onChange: (page: number, size: number) => {
          if (size !== query.pageSize) setPageSize(size);
          setQuery((old) => ({ ...old, page: size !== old.pageSize ? 1 : page, pageSize: size }));
        },
      };

  return {
    query,
    search,
    channels,
    rows: query.tagMode ? groupByTag(channels) : channels,
    loading: active.isFetching,
    pagination,
    selected,
    setSelected,
    setSearch: (next: ChannelSearch) => {
      setSearch(next.keyword || next.group || next.model ? next : null);
    },
    setIdSort: (idSort: boolean) => {
      localStorage.setItem(ID_SORT_KEY, String(idSort));
      setQuery((old) => ({ ...old, idSort, page: 1 }));
    },
    setTagMode: (tagMode: boolean) => setQuery((old) => ({ ...old, tagMode, page: 1 })),
    setBatchMode: (on: boolean) => setSelected(on ? [] : null),
    /** The toolbar's refresh button (spec §8: 'refresh failed' when it fails). */
    refresh: async () => {
      quiet.current = true;
      try {
        const result = await active.refetch();
        if (result.isError) showError(i18n.t('common:error.refreshFailed'));
      } finally {
        quiet.current = false;
      }
    },
  };
}
