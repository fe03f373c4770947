import { formatQuota } from '@modelgate/shared';
import { TopUpStatus } from '@modelgate/shared/api';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { fetchOwnOrder, topUpKeys } from '../api';

/** How long the wallet keeps asking while the gateway's notification has not arrived yet. */
const POLL_MS = 2000;
const POLL_LIMIT = 15;

/**
 * The gateway sends the browser back to the wallet with the order's trade number: what the server
 * recorded for that order is shown (never what the query string claims), and the balance refreshed
 * once the payment is confirmed.
 */
export function PaymentResult({ tradeNo, onClose }: { tradeNo: string; onClose: () => void }) {
  const { t } = useTranslation('topup');
  const { quotaDisplay } = useStatus();
  const queryClient = useQueryClient();
  const order = useQuery({
    queryKey: topUpKeys.order(tradeNo),
    queryFn: () => fetchOwnOrder(tradeNo),
    retry: false,
    refetchInterval: (query) => (query.state.data?.status === TopUpStatus.Pending && query.state.dataUpdateCount < POLL_LIMIT ? POLL_MS : false),
  });
  const paid = order.data?.status === TopUpStatus.Success;

  useEffect(() => {
    if (paid) void queryClient.invalidateQueries({ queryKey: topUpKeys.self });
  }, [paid, queryClient]);

  const close = <Button size="small" onClick={onClose}>{t('common:action.close')}</Button>;
  if (order.isError) return <Alert type="error" showIcon title={t('result.notFound', { tradeNo })} action={close} />;
  if (!order.data) return <Alert type="info" showIcon title={t('result.checking')} />;
  if (paid) {
    return (
      <Alert
        type="success"
        showIcon
        title={t('result.success', { amount: formatQuota(order.data.quota, quotaDisplay) })}
        description={t('result.detail', { tradeNo, money: order.data.money.toFixed(2) })}
        action={close}
        data-testid="payment-result"
      />
    );
  }
  return (
    <Alert
      type="warning"
      showIcon
      title={t('result.pending')}
      description={t('result.detail', { tradeNo, money: order.data.money.toFixed(2) })}
      action={close}
      data-testid="payment-result"
    />
  );
}

