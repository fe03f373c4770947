import { dollarsToQuota, formatQuota, quotaToDollars } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { InputNumber, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { showError, showSuccess } from '../../../lib/feedback';
import { settingKeys, transferInviteRewards } from '../api';

interface AffTransferModalProps {
  open: boolean;
  /** Pending rewards, in quota units. */
  pending: number;
  onClose: () => void;
}

/**
 * Moves invitation rewards into the balance (spec §5: at least one QuotaPerUnit). The amount is
 * typed in the site's display unit — dollars, or quota units with currency display off.
 */
export function AffTransferModal({ open, pending, onClose }: AffTransferModalProps) {
  const { t } = useTranslation('setting');
  const { quotaDisplay } = useStatus();
  const queryClient = useQueryClient();
  const inCurrency = quotaDisplay.displayInCurrency;
  // Everything pending, rounded down to the cent so the default never asks for more than there is.
  const everything = inCurrency ? Math.floor(quotaToDollars(pending, quotaDisplay.quotaPerUnit) * 100) / 100 : pending;
  // Untouched (undefined), the amount is everything pending; closing forgets what was typed.
  const [typed, setTyped] = useState<number | null | undefined>(undefined);
  const value = typed === undefined ? everything : typed;
  const close = () => {
    setTyped(undefined);
    onClose();
  };

  const units = value === null ? 0 : inCurrency ? dollarsToQuota(value, quotaDisplay.quotaPerUnit) : Math.trunc(value);
  const minimum = dollarsToQuota(1, quotaDisplay.quotaPerUnit);
  const transfer = useMutation({
    mutationFn: () => transferInviteRewards(units),
    onSuccess: () => {
      showSuccess(t('invite.transferDone', { amount: formatQuota(units, quotaDisplay) }));
      void queryClient.invalidateQueries({ queryKey: settingKeys.self });
      close();
    },
  });

  const submit = () => {
    if (units < minimum) {
      showError(t('invite.transferMin', { min: formatQuota(minimum, quotaDisplay) }));
      return;
    }
    transfer.mutate();
  };

  return (
    <Modal
      open={open}
      title={t('invite.transferTitle')}
      okText={t('invite.transferSubmit')}
      cancelText={t('common:action.cancel')}
      confirmLoading={transfer.isPending}
      onOk={submit}
      onCancel={close}
      destroyOnHidden
    >
      <Space orientation="vertical" className="mg-stack">
        <Typography.Text type="secondary">{t('invite.transferHint', { pending: formatQuota(pending, quotaDisplay), min: formatQuota(minimum, quotaDisplay) })}</Typography.Text>
        <InputNumber
          value={value}
          onChange={(next) => setTyped(typeof next === 'number' ? next : null)}
          min={0}
          precision={inCurrency ? 2 : 0}
          prefix={inCurrency ? '$' : undefined}
          aria-label={t('invite.transferAmount')}
          className="mg-full-width"
        />
      </Space>
    </Modal>
  );
}
