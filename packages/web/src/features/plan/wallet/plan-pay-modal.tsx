import { AlipayCircleOutlined, CreditCardOutlined, WechatOutlined } from '@ant-design/icons';
import type { PlanPayment } from '@modelgate/shared/api';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Modal, Space, Spin, Typography } from 'antd';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { browser } from '../../../lib/api';
import { showError } from '../../../lib/feedback';
import { submitToGateway } from '../../topup/api';
import { fetchPlanPayable, payPlan, planKeys, type Plan } from '../api';
import { usePlanText } from '../use-plan-text';

const ICONS = { zfb: <AlipayCircleOutlined aria-hidden />, wx: <WechatOutlined aria-hidden />, stripe: <CreditCardOutlined aria-hidden /> } as const;

/**
 * Paying a plan online (issue 32): what it costs through each enabled method, and the buttons
 * that take the browser to the gateway (Epay's signed form, or Stripe's hosted page). The server
 * buys the plan when the payment is confirmed; the wallet shows the outcome on the way back.
 */
export function PlanPayModal({ plan, onClose }: { plan: Plan; onClose: () => void }) {
  const { t } = useTranslation(['plan', 'topup']);
  const text = usePlanText();
  const payable = useQuery({ queryKey: planKeys.payable(plan.id), queryFn: () => fetchPlanPayable(plan.id), retry: false });
  // One order per visit: once a method is chosen (and after success, while the browser leaves for
  // the gateway) another click orders nothing, whatever the buttons show at that instant.
  const started = useRef(false);
  const pay = useMutation({
    mutationFn: (method: PlanPayment['method']) => payPlan(plan.id, method),
    onSuccess: ({ url, fields }) => (Object.keys(fields).length ? submitToGateway(url, fields) : browser.redirect(url)),
    onError: (error) => {
      started.current = false;
      showError(error.message);
    },
  });
  const start = (method: PlanPayment['method']) => {
    if (started.current) return;
    started.current = true;
    pay.mutate(method);
  };
  const busy = pay.isPending || pay.isSuccess;
  const label = (m: PlanPayment) => {
    const money = m.method === 'stripe' ? t('topup:stripe.money', { money: m.money, currency: m.currency }) : t('topup:online.money', { money: m.money });
    const name = m.method === 'zfb' ? t('topup:online.alipay') : m.method === 'wx' ? t('topup:online.wechat') : t('topup:stripe.method');
    return t('plan:wallet.payWith', { method: name, money });
  };
  return (
    <Modal open title={t('plan:wallet.payTitle', { name: plan.name })} onCancel={onClose} footer={null} destroyOnHidden>
      <Space orientation="vertical" size="middle" className="mg-full-width" data-testid="plan-pay">
        <Typography.Text>{t('plan:wallet.payPrice', { price: text.money(plan.price) })}</Typography.Text>
        <Typography.Text type="secondary">{t('plan:wallet.payHint')}</Typography.Text>
        {payable.isPending ? (
          <Spin />
        ) : payable.isError ? (
          <Alert type="error" showIcon title={payable.error.message} />
        ) : (
          <Space orientation="vertical" className="mg-full-width">
            {payable.data.methods.map((m) => (
              <Button key={m.method} block type="primary" icon={ICONS[m.method]} loading={busy && pay.variables === m.method} disabled={busy && pay.variables !== m.method} onClick={() => start(m.method)}>
                {label(m)}
              </Button>
            ))}
          </Space>
        )}
      </Space>
    </Modal>
  );
}
