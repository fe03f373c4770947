import { formatQuota } from '@modelgate/shared';
import { TopUpStatus } from '@modelgate/shared/api';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { fetchOwnOrder, topUpKeys, type TopUpOrder } from '../api';
import { fetchMySubscriptions, planKeys } from '../../plan/api';

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

  const planOrder = (order.data?.plan_id ?? 0) > 0;
  // A plan paid online: its name from the user's subscriptions (the order keeps only the ids).
  const mine = useQuery({ queryKey: planKeys.mine, queryFn: fetchMySubscriptions, enabled: paid && planOrder });

  useEffect(() => {
    if (!paid) return;
    void queryClient.invalidateQueries({ queryKey: topUpKeys.self });
    if (planOrder) void queryClient.invalidateQueries({ queryKey: planKeys.all });
  }, [paid, planOrder, queryClient]);

  /** What a paid plan order came to: the plan running, or the payment left in the balance and why. */
  const planTitle = (o: TopUpOrder) => {
    if (o.subscription_id > 0) {
      const name = mine.data?.find((s) => s.id === o.subscription_id)?.name;
      return name ? t('result.planBought', { name }) : t('result.planBoughtNoName');
    }
    // top_ups.plan_error is a server message code (PLAN_PAID_*); an unknown one reads as itself.
    const reason = t(`result.planError.${o.plan_error}`, { defaultValue: o.plan_error });
    return t('result.planNotBought', { amount: formatQuota(o.quota, quotaDisplay), reason });
  };

  const close = <Button size="small" onClick={onClose}>{t('common:action.close')}</Button>;
  if (order.isError) return <Alert type="error" showIcon title={t('result.notFound', { tradeNo })} action={close} />;
  if (!order.data) return <Alert type="info" showIcon title={t('result.checking')} />;
  if (paid) {
    const notBought = planOrder && order.data.subscription_id === 0;
    return (
      <Alert
        type={notBought ? 'warning' : 'success'}
        showIcon
        title={planOrder ? planTitle(order.data) : t('result.success', { amount: formatQuota(order.data.quota, quotaDisplay) })}
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

