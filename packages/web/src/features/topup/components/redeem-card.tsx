import { GiftOutlined } from '@ant-design/icons';
import { formatQuota } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { showError, showSuccess } from '../../../lib/feedback';
import { redeemCode, topUpKeys } from '../api';

export function RedeemCard() {
  const { t } = useTranslation('topup');
  const { quotaDisplay } = useStatus();
  const queryClient = useQueryClient();
  const [key, setKey] = useState('');

  const redeem = useMutation({
    mutationFn: (code: string) => redeemCode(code),
    onSuccess: (added) => {
      showSuccess(t('redeem.done', { amount: formatQuota(added, quotaDisplay) }));
      setKey('');
      void queryClient.invalidateQueries({ queryKey: topUpKeys.self });
    },
  });

  const submit = () => {
    const code = key.trim();
    // Spec §5: the code must not be empty ('请输入兑换码！').
    if (!code) {
      showError(t('redeem.required'));
      return;
    }
    redeem.mutate(code);
  };

  return (
    <Card title={t('redeem.title')}>
      <Space orientation="vertical" size="middle" className="mg-stack">
        <Typography.Text type="secondary">{t('redeem.hint')}</Typography.Text>
        <Space.Compact block>
          <Input
            value={key}
            onChange={(event) => setKey(event.target.value)}
            onPressEnter={submit}
            allowClear
            prefix={<GiftOutlined aria-hidden />}
            placeholder={t('redeem.placeholder')}
            aria-label={t('redeem.placeholder')}
          />
          {/* Disabled rather than `loading`: antd leaves its loading icon in the accessible name after the spinner fades. */}
          <Button type="primary" disabled={redeem.isPending} onClick={submit}>
            {t('redeem.submit')}
          </Button>
        </Space.Compact>
      </Space>
    </Card>
  );
}
