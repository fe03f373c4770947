import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Popconfirm, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { showSuccess } from '../../../lib/feedback';
import { buyPlan, fetchAvailablePlans, planKeys, type Plan } from '../api';
import { usePlanText } from '../use-plan-text';
import { PlanPayModal } from './plan-pay-modal';
import '../plan.css';

/** The wallet's plans on sale: what each allows and costs, bought from the balance or paid online. */
export function PlansCard() {
  const { t } = useTranslation('plan');
  const text = usePlanText();
  const { status } = useStatus();
  // Paid online through the top-up methods the site has (Epay, Stripe); a free plan only with "Buy".
  const online = status.enable_online_topup === true || status.enable_stripe_topup === true;
  const [paying, setPaying] = useState<Plan | null>(null);
  const queryClient = useQueryClient();
  const plans = useQuery({ queryKey: planKeys.available, queryFn: fetchAvailablePlans });
  const buy = useMutation({
    mutationFn: (p: Plan) => buyPlan(p.id),
    onSuccess: () => showSuccess(t('wallet.bought')),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: planKeys.all });
      void queryClient.invalidateQueries({ queryKey: ['user', 'self'] });
    },
  });
  const items = plans.data ?? [];
  return (
    <Card title={t('wallet.plansTitle')} loading={plans.isPending} data-testid="plans-on-sale">
      <Typography.Paragraph type="secondary">{t(online ? 'wallet.plansHintOnline' : 'wallet.plansHint')}</Typography.Paragraph>
      {items.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('wallet.noneForSale')} />
      ) : (
        <div className="mg-plan-cards">
          {items.map((p) => (
            <Card key={p.id} size="small" title={p.name} data-testid="plan-offer">
              <Space orientation="vertical" size={4} className="mg-full-width">
                <Typography.Text strong>{text.offer(p)}</Typography.Text>
                {p.description && <Typography.Text type="secondary">{p.description}</Typography.Text>}
                {text.allowances(p.allowances).map((line) => (
                  <Typography.Text key={line}>{line}</Typography.Text>
                ))}
                {text.scope(p).map((line) => (
                  <Typography.Text key={line} type="secondary">
                    {line}
                  </Typography.Text>
                ))}
                <Typography.Text type="secondary">{p.fall_through ? t('wallet.beyond.wallet') : t('wallet.beyond.refuse')}</Typography.Text>
                <Flex gap={8} wrap>
                  <Popconfirm title={t('wallet.buyConfirm', { name: p.name, price: text.money(p.price) })} onConfirm={() => buy.mutate(p)}>
                    <Button type="primary" className="mg-plan-buy" loading={buy.isPending && buy.variables?.id === p.id}>
                      {t('wallet.buy')}
                    </Button>
                  </Popconfirm>
                  {online && p.price > 0 && (
                    <Button className="mg-plan-buy" onClick={() => setPaying(p)}>
                      {t('wallet.payOnline')}
                    </Button>
                  )}
                </Flex>
              </Space>
            </Card>
          ))}
        </div>
      )}
      {paying && <PlanPayModal plan={paying} onClose={() => setPaying(null)} />}
    </Card>
  );
}
