import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
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
import { useSession } from '../../app/session';
import { isRoot } from '../../lib/roles';
import { confirmSaveWithoutRatio, modelsWithoutRatio } from './unpriced-check';

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

  const { user } = useSession();
  // The price check runs before the save; the button stays busy through both (no second submit meanwhile).
  const [checking, setChecking] = useState(false);

  const checkAndSave = async () => {
    if (checking || save.isPending) return;
    const values = { ...DEFAULT_CHANNEL_VALUES, ...form.getFieldsValue(true) } as ChannelFormValues;
    const result = buildChannelPayload(values, mode, channel.data);
    if ('problem' in result) {
      showError(t(`drawer.problem.${result.problem}`));
      return;
    }
    setChecking(true);
    try {
      const unpriced = await modelsWithoutRatio(String(result.payload.models ?? ''));
      if (unpriced.length > 0 && !(await confirmSaveWithoutRatio(unpriced, t, isRoot(user)))) return;
    } finally {
      setChecking(false);
    }
    save.mutate(result.payload);
  };
  const submit = () => void checkAndSave();

  return {
    mode,
    initialValues,
    loading: !initialValues,
    failed: channel.isError,
    saving: save.isPending || checking,
    submit,
  } as const;
}
