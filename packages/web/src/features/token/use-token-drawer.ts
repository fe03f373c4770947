import type { TokenBody } from '@modelgate/shared/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../lib/feedback';
import { createToken, fetchToken, tokenKeys, updateToken } from './api';
import { buildTokenInputs, DEFAULT_TOKEN_VALUES, tokenToFormValues, type TokenFormValues } from './token-form';

/** Loading and saving for the token drawer; `tokenId` null means create mode (spec §4). */
export function useTokenDrawer(form: FormInstance<TokenFormValues>, open: boolean, tokenId: number | null, onDone: () => void) {
  const { t } = useTranslation('token');
  const queryClient = useQueryClient();
  const mode = tokenId === null ? 'create' : 'edit';

  const token = useQuery({
    queryKey: tokenKeys.detail(tokenId ?? 0),
    queryFn: () => fetchToken(tokenId!),
    enabled: open && tokenId !== null,
    gcTime: 0,
  });

  // The form mounts only once its values are known (the drawer destroys it on close).
  const initialValues = mode === 'create' ? DEFAULT_TOKEN_VALUES : token.data ? tokenToFormValues(token.data) : undefined;

  const save = useMutation({
    mutationFn: async (inputs: Required<TokenBody>[]) => {
      if (mode === 'edit' && token.data) {
        await updateToken({ ...token.data, ...inputs[0], id: token.data.id });
        return;
      }
      // One request per token, in order; the first failure stops the batch (it was already toasted).
      for (const input of inputs) await createToken(input);
    },
    onSuccess: () => {
      showSuccess(mode === 'create' ? t('drawer.created') : t('drawer.updated'));
      onDone();
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }),
  });

  const submit = (values: TokenFormValues) => {
    const result = buildTokenInputs({ ...form.getFieldsValue(true), ...values }, mode);
    if ('problem' in result) {
      showError(t(`drawer.problem.${result.problem}`));
      return;
    }
    save.mutate(result.inputs);
  };

  return { mode, initialValues, loading: !initialValues, saving: save.isPending, submit } as const;
}
