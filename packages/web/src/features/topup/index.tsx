import { useQuery } from '@tanstack/react-query';
import { Col, Row, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useSession } from '../../app/session';
import { useStatus } from '../../app/status';
import { isAdmin } from '../../lib/roles';
import { fetchSelf, topUpKeys } from './api';
import { BalanceCard } from './components/balance-card';
import { OnlineCard } from './components/online-card';
import { OrdersPanel } from './components/orders-panel';
import { PaymentResult } from './components/payment-result';
import { RedeemCard } from './components/redeem-card';
import { StripeCard } from './components/stripe-card';
import { LimitsCard } from '../plan/wallet/limits-card';
import { MyPlansCard } from '../plan/wallet/my-plans-card';
import { PlansCard } from '../plan/wallet/plans-card';
import './topup.css';

function Wallet() {
  const self = useQuery({ queryKey: topUpKeys.self, queryFn: fetchSelf });
  const { status } = useStatus();
  const [params, setParams] = useSearchParams();
  // The gateway's return_url: the wallet, with the order's fields appended (Epay's `out_trade_no`,
  // Stripe's success or cancel URL its `trade_no`).
  const tradeNo = params.get('out_trade_no') ?? params.get('trade_no');
  const stripeOn = status.enable_stripe_topup === true;
  return (
    <Row gutter={[16, 16]}>
      {tradeNo && (
        <Col span={24}>
          <PaymentResult tradeNo={tradeNo} cancelled={params.get('stripe') === 'cancel'} onClose={() => setParams({}, { replace: true })} />
        </Col>
      )}
      <Col xs={24} xl={12}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <BalanceCard user={self.data} />
          </Col>
          <Col span={24}>
            <RedeemCard />
          </Col>
        </Row>
      </Col>
      <Col xs={24} xl={12}>
        <Row gutter={[16, 16]}>
          {/* With Stripe on, the Epay card only when Epay is configured too (no "not enabled" beside a working method). */}
          {(status.enable_online_topup === true || !stripeOn) && (
            <Col span={24}>
              <OnlineCard />
            </Col>
          )}
          {stripeOn && (
            <Col span={24}>
              <StripeCard />
            </Col>
          )}
        </Row>
      </Col>
      {/* Periodic limits and plans (issue 32): the meters, the user's plans in draw order, and plans on sale. */}
      {self.data?.windows.some((w) => w.scope === 'user') && (
        <Col span={24}>
          <LimitsCard windows={self.data.windows} />
        </Col>
      )}
      <Col xs={24} xl={12}>
        <MyPlansCard />
      </Col>
      <Col xs={24} xl={12}>
        <PlansCard />
      </Col>
    </Row>
  );
}

/** The wallet (spec screen 10): balance, redeem a code, online top-up; admins also see every order. */
export default function TopUpPage() {
  const { t } = useTranslation('topup');
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  if (!isAdmin(user)) return <Wallet />;
  const active = params.get('tab') === 'orders' ? 'orders' : 'wallet';
  return (
    <Tabs
      activeKey={active}
      onChange={(key) => setParams(key === 'orders' ? { tab: key } : {}, { replace: true })}
      items={[
        { key: 'wallet', label: t('tabs.wallet'), children: <Wallet /> },
        { key: 'orders', label: t('tabs.orders'), children: <OrdersPanel /> },
      ]}
    />
  );
}
