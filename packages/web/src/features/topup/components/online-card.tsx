import { AlipayCircleOutlined, WechatOutlined } from '@ant-design/icons';
import { dollarsToQuota, formatQuota } from '@modelgate/shared';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, InputNumber, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDebounced } from '../../../lib/use-debounced';
import { useStatus } from '../../../app/status';
import { showError } from '../../../lib/feedback';
import { createPayment, fetchPayable, submitToGateway, topUpKeys } from '../api';

/** Spec §9: the preset amounts, in dollars. */
const PRESETS = [1, 10, 50, 100, 500, 1000];

/**
 * Online top-up (spec screen 10): an amount in the site's display unit (whole dollars, or quota
 * units when currency display is off), the payable the server quotes for it, and the payment
 * buttons that post the signed order to the gateway.
 */
export function OnlineCard() {
  const { t } = useTranslation('topup');
  const { status, quotaDisplay } = useStatus();
  const inCurrency = quotaDisplay.displayInCurrency;
  const minDollars = Math.max(1, Number(status.min_topup) || 1);
  const toUnits = (dollars: number) => (inCurrency ? dollars : dollarsToQuota(dollars, quotaDisplay.quotaPerUnit));
  const min = toUnits(minDollars);
  const presets = PRESETS.filter((preset) => preset >= minDollars).map(toUnits);
  // Untouched, the amount is the minimum (which may arrive with /api/status after the first render).
  const [typed, setTyped] = useState<number | null | undefined>(undefined);
  const amount = typed === undefined ? min : typed;
  const setAmount = (value: number | null) => setTyped(value);
  const settled = useDebounced(amount, 300);
  const valid = settled !== null && Number.isInteger(settled) && settled >= min;
  const enabled = status.enable_online_topup === true;

  const payable = useQuery({ queryKey: topUpKeys.payable(settled ?? 0), queryFn: () => fetchPayable(settled!), enabled: enabled && valid, retry: false });
  const pay = useMutation({
    mutationFn: ({ value, method }: { value: number; method: 'zfb' | 'wx' }) => createPayment(value, method),
    onSuccess: ({ url, fields }) => submitToGateway(url, fields),
    onError: (error) => showError(error.message),
  });

  const start = (method: 'zfb' | 'wx') => {
    // Spec §5: at least the minimum ('充值数量不能小于' plus the minimum).
    if (amount === null || !Number.isInteger(amount) || amount < min) {
      showError(t('online.tooLow', { min: inCurrency ? `$${min}` : min }));
      return;
    }
    pay.mutate({ value: amount, method });
  };

  return (
    <Card title={t('online.title')}>
      {!enabled ? (
        <Alert type="info" showIcon title={t('online.disabled')} />
      ) : (
        <Space orientation="vertical" size="middle" className="mg-stack">
          <div>
            <Typography.Text strong>{t('online.amount')}</Typography.Text>
            <div>
              <Typography.Text type="secondary">{inCurrency ? t('online.amountHintUsd', { min: `$${min}` }) : t('online.amountHintUnits', { min })}</Typography.Text>
            </div>
          </div>
          <Space wrap size={[8, 8]}>
            {presets.map((preset) => (
              <Button key={preset} type={preset === amount ? 'primary' : 'default'} onClick={() => setAmount(preset)}>
                {inCurrency ? `$${preset}` : formatQuota(preset, quotaDisplay)}
              </Button>
            ))}
          </Space>
          <InputNumber
            value={amount}
            onChange={(value) => setAmount(typeof value === 'number' ? value : null)}
            min={1}
            precision={0}
            prefix={inCurrency ? '$' : undefined}
            aria-label={t('online.amount')}
            className="mg-full-width"
          />
          <div aria-live="polite" data-testid="topup-payable">
            {!valid ? (
              <Typography.Text type="danger">{t('online.tooLow', { min: inCurrency ? `$${min}` : min })}</Typography.Text>
            ) : payable.isError ? (
              <Typography.Text type="danger">{payable.error.message}</Typography.Text>
            ) : (
              <Typography.Text>
                {t('online.payable')} <Typography.Text strong>{payable.data ? t('online.money', { money: payable.data }) : t('online.calculating')}</Typography.Text>
              </Typography.Text>
            )}
          </div>
          <Space wrap>
            <Button type="primary" icon={<AlipayCircleOutlined aria-hidden />} loading={pay.isPending && pay.variables?.method === 'zfb'} onClick={() => start('zfb')}>
              {t('online.alipay')}
            </Button>
            <Button type="primary" icon={<WechatOutlined aria-hidden />} loading={pay.isPending && pay.variables?.method === 'wx'} onClick={() => start('wx')}>
              {t('online.wechat')}
            </Button>
          </Space>
        </Space>
      )}
    </Card>
  );
}
