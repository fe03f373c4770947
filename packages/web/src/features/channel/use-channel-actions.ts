import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import i18n from '../../i18n';
import { showError, showSuccess, toast } from '../../lib/feedback';
import {
  channelKeys,
  copyChannel,
  deleteChannel,
  deleteChannels,
  deleteDisabledChannels,
  editTag,
  fixChannels,
  setBatchTag,
  patchChannel,
  setTagStatus,
  testAllChannels,
  testChannel,
  updateAllBalances,
  updateChannelBalance,
  type Channel,
  type TagEdit,
} from './api';

/** Test times come back in seconds; a fast upstream answers in milliseconds, so keep three digits there. */
export function formatSeconds(seconds: number): string {
  if (seconds >= 10) return seconds.toFixed(1);
  return seconds >= 0.01 ? seconds.toFixed(2) : seconds.toFixed(3);
}

/** Every row, tag and toolbar operation of the channel screen; each refreshes the list when done. */
export function useChannelActions(selected: number[] | null, clearSelection: () => void) {
  const { t } = useTranslation('channel');
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: channelKeys.all });

  const test = useMutation({
    mutationFn: ({ channel, model }: { channel: Channel; model?: string }) => testChannel(channel.id, model),
    onSuccess: (result, { channel, model }) => {
      const name = model ? `${channel.name} (${model})` : channel.name;
      if (result.success) showSuccess(t('message.testSuccess', { name, time: formatSeconds(result.time) }));
      else showError(t('message.testFailed', { name, message: result.message }));
    },
    onSettled: refresh,
  });
  const patch = useMutation({
    mutationFn: ({ channel, values }: { channel: Channel; values: { status?: number; priority?: number; weight?: number } }) =>
      patchChannel(channel.id, values),
    onSuccess: () => showSuccess(t('message.updated')),
    onSettled: refresh,
  });
  const copy = useMutation({
    mutationFn: (channel: Channel) => copyChannel(channel.id, t('copySuffix')),
    onSuccess: (_data, channel) => showSuccess(t('message.copied', { name: channel.name })),
    onError: (error: Error) => showError(t('message.copyFailed', { message: error.message })),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (channel: Channel) => deleteChannel(channel.id),
    onSuccess: () => showSuccess(t('message.deleted')),
    onSettled: refresh,
  });
  const balance = useMutation({
    mutationFn: (channel: Channel) => updateChannelBalance(channel.id),
    onSuccess: (result, channel) => {
      if (result.success) showSuccess(t('message.balanceUpdated', { name: channel.name, balance: result.balance.toFixed(2) }));
      else showError(result.message);
    },
    onError: () => showError(i18n.t('common:error.refreshFailed')),
    onSettled: refresh,
  });
  const tag = useMutation({
    mutationFn: (op: { tag: string; enabled?: boolean; edit?: Omit<TagEdit, 'tag'> }) =>
      op.edit ? editTag({ tag: op.tag, ...op.edit }) : setTagStatus(op.tag, !!op.enabled),
    onSuccess: () => showSuccess(t('message.updated')),
    onSettled: refresh,
  });
  const bulk = useMutation({
    mutationFn: async (op: 'testAll' | 'updateBalances' | 'deleteDisabled' | 'fix' | 'deleteSelected') => {
      switch (op) {
        case 'testAll':
          await testAllChannels();
          return t('message.testAllStarted');
        case 'updateBalances': {
          const result = await updateAllBalances();
          return t('message.balancesUpdated', { updated: result?.updated ?? 0, disabled: result?.disabled ?? 0 });
        }
        case 'deleteDisabled':
          return t('message.disabledDeleted', { count: Number(await deleteDisabledChannels()) || 0 });
        case 'fix':
          return t('message.fixed', { count: Number(await fixChannels()) || 0 });
        case 'deleteSelected': {
          const count = Number(await deleteChannels(selected ?? [])) || 0;
          clearSelection();
          return t('message.selectedDeleted', { count });
        }
      }
    },
    onSuccess: (text, op) => {
      if (op === 'testAll') void toast().info(text);
      else showSuccess(text);
    },
    onSettled: refresh,
  });

  const batchTag = useMutation({
    mutationFn: (name: string) => setBatchTag(selected ?? [], name),
    onSuccess: (count) => showSuccess(t('message.batchTagged', { count: Number(count) || 0 })),
    onSettled: refresh,
  });

  return {
    refresh,
    batchTag: (name: string) => batchTag.mutate(name),
    test: (channel: Channel, model?: string) => test.mutate({ channel, model }),
    toggle: (channel: Channel, status: number) => patch.mutate({ channel, values: { status } }),
    patch: (channel: Channel, values: { priority?: number; weight?: number }) => patch.mutate({ channel, values }),
    remove: (channel: Channel) => remove.mutate(channel),
    copy: (channel: Channel) => copy.mutate(channel),
    balance: (channel: Channel) => balance.mutate(channel),
    tagStatus: (name: string, enabled: boolean) => tag.mutate({ tag: name, enabled }),
    tagPatch: (name: string, edit: Omit<TagEdit, 'tag'>) => tag.mutate({ tag: name, edit }),
    /** 'tagSelected' only checks the selection; the tag itself comes from a dialog. */
    bulk: (op: Parameters<typeof bulk.mutate>[0] | 'tagSelected'): boolean => {
      if ((op === 'deleteSelected' || op === 'tagSelected') && !selected?.length) {
        showError(t(op === 'deleteSelected' ? 'message.selectFirst' : 'message.selectFirstTag'));
        return false;
      }
      if (op !== 'tagSelected') bulk.mutate(op);
      return true;
    },
    testingId: test.isPending ? (test.variables?.channel.id ?? null) : null,
    busyId: patch.isPending ? (patch.variables?.channel.id ?? null) : remove.isPending ? (remove.variables?.id ?? null) : null,
    balanceId: balance.isPending ? (balance.variables?.id ?? null) : null,
    busyTag: tag.isPending ? (tag.variables?.tag ?? null) : null,
    busyBulk: bulk.isPending ? (bulk.variables ?? null) : null,
  };
}
