import { CopyOutlined, KeyOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Button, Card, Input, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';
import { generateAccessToken } from '../api';

export function AccessTokenCard() {
  const { t } = useTranslation('setting');
  const mutation = useMutation({
    mutationFn: generateAccessToken,
    onSuccess: (token) => void copyText(token, t('accessToken.copied')),
  });

  return (
    <Card title={t('accessToken.title')}>
      <Space orientation="vertical" size="middle" className="mg-stack">
        <Typography.Text type="secondary">{t('accessToken.hint')}</Typography.Text>
        {mutation.data && (
          <Space.Compact block>
            <Input value={mutation.data} readOnly data-testid="access-token" aria-label={t('accessToken.title')} />
            <Button icon={<CopyOutlined aria-hidden />} onClick={() => void copyText(mutation.data, t('accessToken.copied'))}>
              {t('common:action.copy')}
            </Button>
          </Space.Compact>
        )}
        <Button icon={<KeyOutlined aria-hidden />} loading={mutation.isPending} onClick={() => mutation.mutate()}>
          {mutation.data ? t('accessToken.regenerate') : t('accessToken.generate')}
        </Button>
      </Space>
    </Card>
  );
}
