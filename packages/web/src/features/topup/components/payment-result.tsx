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
export function PaymentResult({ tradeNo, cancelled = false, onClose }: { tradeNo: string; cancelled?: boolean; onClose: () => void }) {
  const { t } = useTranslation('topup');
  const { status, quotaDisplay } = useStatus();
  const queryClient = useQueryClient();
  const order = useQuery({
    queryKey: topUpKeys.order(tradeNo),
    queryFn: () => fetchOwnOrder(tradeNo),
    retry: false,
    refetchInterval: (query) => (query.state.data?.status === TopUpStatus.Pending && query.state.dataUpdateCount < POLL_LIMIT ? POLL_MS : false),
  });
  const paid = order.data?.status === TopUpStatus.Success;
  // Stripe orders are paid in the Stripe currency; Epay's in yuan.
  const detail = (o: { money: number; payment_method: string }) =>
    o.payment_method === 'stripe'
      ? t('result.detailIn', { tradeNo, money: t('stripe.money', { money: o.money.toFixed(2), currency: (status.stripe_currency || 'usd').toUpperCase() }) })
      : t('result.detail', { tradeNo, money: o.money.toFixed(2) });

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
        description={detail(order.data)}
        action={close}
        data-testid="payment-result"
      />
    );
  }
  if (order.data.status === TopUpStatus.Refunded || order.data.status === TopUpStatus.Disputed) {
    return <Alert type="warning" showIcon title={t(`result.${order.data.status}`)} description={detail(order.data)} action={close} data-testid="payment-result" />;
  }
  if (order.data.status === TopUpStatus.Failed) {
    return <Alert type="error" showIcon title={t('result.failed')} description={detail(order.data)} action={close} data-testid="payment-result" />;
  }
  if (cancelled && order.data.status === TopUpStatus.Pending) {
    return <Alert type="info" showIcon title={t('result.cancelled')} description={detail(order.data)} action={close} data-testid="payment-result" />;
  }
  return (
    <Alert
      type="warning"
      showIcon
      title={t('result.pending')}
      description={detail(order.data)}
      action={close}
      data-testid="payment-result"
    />
  );
}

