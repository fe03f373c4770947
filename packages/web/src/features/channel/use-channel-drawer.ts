import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../lib/feedback';
import { channelKeys, createChannel, fetchChannel, updateChannel } from './api';
import {
  buildChannelPayload,
  channelToFormValues,
  DEFAULT_CHANNEL_VALUES,
  type ChannelFormValues,
  type ChannelPayload,
} from './channel-form';

/** Loading and saving for the channel drawer; no id means create mode. */
export function useChannelDrawer(
  form: FormInstance<ChannelFormValues>,
  open: boolean,
  channelId: number | null,
  onDone: () => void,
) {
  const { t } = useTranslation('channel');
  const queryClient = useQueryClient();
  const mode = channelId === null ? 'create' : 'edit';

  const channel = useQuery({
    queryKey: channelKeys.detail(channelId ?? 0),
    queryFn: () => fetchChannel(channelId!),
    enabled: open && channelId !== null,
    gcTime: 0,
    retry: false,
  });

  const initialValues =
    mode === 'create'
      ? DEFAULT_CHANNEL_VALUES
      : channel.data
        ? channelToFormValues(channel.data)
        : undefined;

  const save = useMutation({
    mutationFn: (payload: ChannelPayload) =>
      mode === 'edit' ? updateChannel(payload as ChannelPayload & { id: number }) : createChannel(payload),
    onSuccess: () => {
      showSuccess(mode === 'create' ? t('drawer.created') : t('drawer.updated'));
      onDone();
    },
    // Not awaited: the drawer is done when the save is, not when the list has been fetched again.
    onSettled: () => void queryClient.invalidateQueries({ queryKey: channelKeys.all }),
  });

  const submit = () => {
    const values = { ...DEFAULT_CHANNEL_VALUES, ...form.getFieldsValue(true) } as ChannelFormValues;
    const result = buildChannelPayload(values, mode, channel.data);
    if ('problem' in result) {
      showError(t(`drawer.problem.${result.problem}`));
      return;
    }
    save.mutate(result.payload);
  };

  return {
    mode,
    initialValues,
    loading: !initialValues,
    failed: channel.isError,
    saving: save.isPending,
    submit,
  } as const;
}
