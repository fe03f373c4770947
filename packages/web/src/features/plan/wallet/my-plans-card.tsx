import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Empty, Popconfirm, Space, Switch, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { SubscriptionStatus } from '@modelgate/shared/api';
import { WindowMeters } from '../../../components/window-meters';
import { showSuccess } from '../../../lib/feedback';
import dayjs from '../../../lib/dayjs';
import { cancelSubscription, fetchMySubscriptions, orderSubscriptions, planKeys, renewSubscription, setAutoRenew, type Subscription } from '../api';
import { usePlanText } from '../use-plan-text';

const when = (sec: number) => dayjs.unix(sec).format('YYYY-MM-DD HH:mm');

/** One subscription: its state, end, meters, and what its owner may do with it. */
function SubscriptionItem({ sub, index, running }: { sub: Subscription; index: number; running: Subscription[] }) {
  const { t } = useTranslation('plan');
  const text = usePlanText();
  const queryClient = useQueryClient();
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: planKeys.all });
    void queryClient.invalidateQueries({ queryKey: ['user', 'self'] });
  };
  const renew = useMutation({ mutationFn: () => renewSubscription(sub.id), onSuccess: () => showSuccess(t('wallet.renewed')), onSettled: refresh });
  const cancel = useMutation({ mutationFn: () => cancelSubscription(sub.id), onSuccess: () => showSuccess(t('wallet.cancelled')), onSettled: refresh });
  const auto = useMutation({ mutationFn: (on: boolean) => setAutoRenew(sub.id, on), onSettled: refresh });
  const move = useMutation({
    mutationFn: (by: number) => {
      const ids = running.map((s) => s.id);
      const [moved] = ids.splice(index, 1);
      ids.splice(index + by, 0, moved!);
      return orderSubscriptions(ids);
    },
    onSettled: refresh,
  });
  const active = sub.status === SubscriptionStatus.Active;
  const renewable = active && sub.duration_days > 0 && sub.expires_at > 0;
  return (
    <div className="mg-plan-sub" data-testid="subscription" data-status={sub.status}>
      <div className="mg-plan-sub-head">
        <Space wrap>
          {active && <Tag color="blue">{index + 1}</Tag>}
          <Typography.Text strong>{sub.name}</Typography.Text>
          <Tag color={active ? 'green' : 'default'}>{t(`wallet.state.${sub.status}`)}</Tag>
          <Typography.Text type="secondary">
            {active ? (sub.expires_at > 0 ? t('wallet.expires', { time: when(sub.expires_at) }) : t('wallet.neverExpires')) : t('wallet.ended', { time: when(sub.ended_at || sub.expires_at) })}
          </Typography.Text>
          {sub.granted_by > 0 && <Typography.Text type="secondary">{t('wallet.granted')}</Typography.Text>}
        </Space>
        {active && (
          <Space wrap size={[4, 4]}>
            <Button size="small" disabled={index === 0} loading={move.isPending && move.variables === -1} onClick={() => move.mutate(-1)}>
              {t('wallet.up')}
            </Button>
            <Button size="small" disabled={index === running.length - 1} loading={move.isPending && move.variables === 1} onClick={() => move.mutate(1)}>
              {t('wallet.down')}
            </Button>
            {renewable && (
              <Popconfirm title={t('wallet.renewConfirm', { name: sub.name, price: text.money(sub.price), count: sub.duration_days })} onConfirm={() => renew.mutate()}>
                <Button size="small" loading={renew.isPending}>
                  {t('wallet.renew')}
                </Button>
              </Popconfirm>
            )}
            <Popconfirm title={t('wallet.cancelConfirm', { name: sub.name })} onConfirm={() => cancel.mutate()}>
              <Button size="small" danger loading={cancel.isPending}>
                {t('wallet.cancel')}
              </Button>
            </Popconfirm>
          </Space>
        )}
      </div>
      {active && (
        <>
          {renewable && (
            <Space className="mg-plan-auto">
              <Switch size="small" checked={sub.auto_renew} loading={auto.isPending} onChange={(on) => auto.mutate(on)} aria-label={t('wallet.autoRenew')} />
              <Typography.Text>{t('wallet.autoRenew')}</Typography.Text>
            </Space>
          )}
          <Typography.Paragraph type="secondary" className="mg-small">
            {sub.fall_through ? t('wallet.beyond.wallet') : t('wallet.beyond.refuse')}
          </Typography.Paragraph>
          <WindowMeters meters={sub.meters} />
        </>
      )}
    </div>
  );
}

/** The wallet's own subscriptions, running ones first in the order they are drawn on. */
export function MyPlansCard() {
  const { t } = useTranslation('plan');
  const subs = useQuery({ queryKey: planKeys.mine, queryFn: fetchMySubscriptions });
  const list = subs.data ?? [];
  const running = list.filter((s) => s.status === SubscriptionStatus.Active);
  return (
    <Card title={t('wallet.mine')} loading={subs.isPending} data-testid="my-plans">
      {list.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('wallet.none')} />
      ) : (
        <>
          {running.length > 1 && <Typography.Paragraph type="secondary">{t('wallet.mineHint')}</Typography.Paragraph>}
          {list.slice(0, 10).map((sub) => (
            <SubscriptionItem key={sub.id} sub={sub} index={running.indexOf(sub)} running={running} />
          ))}
        </>
      )}
    </Card>
  );
}
