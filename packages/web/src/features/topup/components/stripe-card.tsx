import { CreditCardOutlined } from '@ant-design/icons';
import { dollarsToQuota, formatQuota } from '@modelgate/shared';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Card, InputNumber, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDebounced } from '../../../lib/use-debounced';
import { useStatus } from '../../../app/status';
import { browser } from '../../../lib/api';
import { showError } from '../../../lib/feedback';
import { createStripeCheckout, fetchStripePayable, topUpKeys } from '../api';

/**
 * Card top-up through Stripe Checkout (issue 33): the amounts the administrator offers, any other
 * whole amount from the minimum, the price the server quotes in the Stripe currency, and a button
 * that opens Stripe's hosted payment page. The balance is credited by Stripe's signed webhook;
 * coming back, the wallet shows what the server recorded for the order.
 */
export function StripeCard() {
  const { t } = useTranslation('topup');
  const { status, quotaDisplay } = useStatus();
  const inCurrency = quotaDisplay.displayInCurrency;
  const toUnits = (dollars: number) => (inCurrency ? dollars : dollarsToQuota(dollars, quotaDisplay.quotaPerUnit));
  const minDollars = Math.max(1, Number(status.stripe_min_topup) || 1);
  const min = toUnits(minDollars);
  const presets = (status.stripe_amount_options ?? []).filter((d) => d >= minDollars).map(toUnits);
  const currency = (status.stripe_currency || 'usd').toUpperCase();
  const [typed, setTyped] = useState<number | null | undefined>(undefined);
  const amount = typed === undefined ? (presets[0] ?? min) : typed;
  const settled = useDebounced(amount, 300);
  const valid = settled !== null && Number.isInteger(settled) && settled >= min;
  const tooLow = t('online.tooLow', { min: inCurrency ? `$${min}` : min });

  const payable = useQuery({ queryKey: topUpKeys.stripePayable(settled ?? 0), queryFn: () => fetchStripePayable(settled!), enabled: valid, retry: false });
  const pay = useMutation({
    mutationFn: (value: number) => createStripeCheckout(value),
    onSuccess: ({ url }) => browser.redirect(url),
    onError: (error) => showError(error.message),
  });

  const start = () => {
    if (amount === null || !Number.isInteger(amount) || amount < min) {
      showError(tooLow);
      return;
    }
    pay.mutate(amount);
  };

  return (
    <Card title={t('stripe.title')} data-testid="stripe-card">
      <Space orientation="vertical" size="middle" className="mg-stack">
        <Typography.Text type="secondary">{t('stripe.hint', { currency })}</Typography.Text>
        {presets.length > 0 && (
          <Space wrap size={[8, 8]}>
            {presets.map((preset) => (
              <Button key={preset} type={preset === amount ? 'primary' : 'default'} onClick={() => setTyped(preset)}>
                {inCurrency ? `$${preset}` : formatQuota(preset, quotaDisplay)}
              </Button>
            ))}
          </Space>
        )}
        <InputNumber
          value={amount}
          onChange={(value) => setTyped(typeof value === 'number' ? value : null)}
          min={1}
          precision={0}
          prefix={inCurrency ? '$' : undefined}
          aria-label={t('stripe.amount')}
          className="mg-full-width"
        />
        <div aria-live="polite" data-testid="stripe-payable">
          {!valid ? (
            <Typography.Text type="danger">{tooLow}</Typography.Text>
          ) : payable.isError ? (
            <Typography.Text type="danger">{payable.error.message}</Typography.Text>
          ) : (
            <Typography.Text>
              {t('online.payable')} <Typography.Text strong>{payable.data ? t('stripe.money', { money: payable.data, currency }) : t('online.calculating')}</Typography.Text>
            </Typography.Text>
          )}
        </div>
        <Button type="primary" icon={<CreditCardOutlined aria-hidden />} loading={pay.isPending} onClick={start}>
          {t('stripe.pay')}
        </Button>
      </Space>
    </Card>
  );
}
