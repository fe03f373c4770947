import { SafetyCertificateOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Divider, Form, Image, Input, Skeleton, Space, Tag, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../lib/feedback';
import { disableTwoFactor, enableTwoFactor, fetchTwoFactorStatus, regenerateBackupCodes, startTwoFactorSetup, twoFactorKeys } from './api';
import { BackupCodesView } from './backup-codes-view';
import { CodePromptModal } from './code-prompt-modal';
import { PasskeysSection } from './passkeys-section';

type Prompt = 'disable' | 'regenerate' | null;

/**
 * Personal settings → security: TOTP (status, enrolment with a QR code, backup codes, turning it
 * off) and, beside it, the account's passkeys; either is a second factor.
 */
export function SecurityCard() {
  const { t } = useTranslation('setting');
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: twoFactorKeys.status, queryFn: fetchTwoFactorStatus });
  const [codes, setCodes] = useState<string[] | null>(null);
  const [prompt, setPrompt] = useState<Prompt>(null);
  const [form] = Form.useForm<{ code: string }>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: twoFactorKeys.status });

  const setup = useMutation({ mutationFn: startTwoFactorSetup });
  const enable = useMutation({
    mutationFn: enableTwoFactor,
    onSuccess: (backup) => {
      setCodes(backup);
      setup.reset();
      form.resetFields();
      showSuccess(t('twoFactor.enabled'));
      void refresh();
    },
  });
  const regenerate = useMutation({
    mutationFn: regenerateBackupCodes,
    onSuccess: (backup) => {
      setPrompt(null);
      setCodes(backup);
      void refresh();
    },
  });
  const disable = useMutation({
    mutationFn: disableTwoFactor,
    onSuccess: () => {
      setPrompt(null);
      showSuccess(t('twoFactor.disabled'));
      void refresh();
    },
  });

  const data = status.data;
  let body;
  if (codes) {
    body = <BackupCodesView codes={codes} onDone={() => setCodes(null)} />;
  } else if (setup.data) {
    body = (
      <Space orientation="vertical" size="middle" className="mg-stack">
        <Typography.Text>{t('twoFactor.scan')}</Typography.Text>
        <Image src={setup.data.qr_code} alt={t('twoFactor.qrAlt')} width={200} height={200} preview={false} data-testid="two-factor-qr" />
        <Typography.Text type="secondary">{t('twoFactor.manual')}</Typography.Text>
        <Typography.Text code copyable className="mg-break-all" data-testid="two-factor-secret">
          {setup.data.secret}
        </Typography.Text>
        <Form form={form} layout="vertical" name="two-factor-enable" onFinish={({ code }) => enable.mutate(code.trim())}>
          <Form.Item name="code" label={t('twoFactor.code')} rules={[{ required: true, whitespace: true, message: t('twoFactor.codeRequired') }]}>
            <Input autoComplete="one-time-code" inputMode="numeric" maxLength={6} />
          </Form.Item>
          <Space wrap>
            <Button type="primary" htmlType="submit" loading={enable.isPending}>
              {t('twoFactor.enable')}
            </Button>
            <Button onClick={() => setup.reset()}>{t('common:action.cancel')}</Button>
          </Space>
        </Form>
      </Space>
    );
  } else if (data?.enabled) {
    body = (
      <Space orientation="vertical" size="middle" className="mg-stack">
        <Space wrap>
          <Tag color="success">{t('twoFactor.on')}</Tag>
          <Typography.Text type="secondary">{t('twoFactor.remaining', { count: data.backup_codes_remaining })}</Typography.Text>
        </Space>
        <Space wrap>
          <Button onClick={() => setPrompt('regenerate')}>{t('twoFactor.regenerate')}</Button>
          <Button danger onClick={() => setPrompt('disable')}>
            {t('twoFactor.disable')}
          </Button>
        </Space>
      </Space>
    );
  } else {
    body = (
      <Space orientation="vertical" size="middle" className="mg-stack">
        {data?.enrolment_required && <Alert type="warning" showIcon title={t('twoFactor.required')} data-testid="two-factor-required" />}
        <Space wrap>
          <Tag>{t('twoFactor.off')}</Tag>
          <Typography.Text type="secondary">{t('twoFactor.hint')}</Typography.Text>
        </Space>
        <Button type="primary" icon={<SafetyCertificateOutlined aria-hidden />} loading={setup.isPending} disabled={!data} onClick={() => setup.mutate()}>
          {t('twoFactor.setup')}
        </Button>
      </Space>
    );
  }

  return (
    <Card title={t('twoFactor.title')} data-testid="security-card">
      <Typography.Title level={5} className="mg-passkeys-title">
        {t('twoFactor.appTitle')}
      </Typography.Title>
      {body}
      <Divider />
      {/* Its texts are the `passkey` namespace, fetched on first use. */}
      <Suspense fallback={<Skeleton active title={false} paragraph={{ rows: 2 }} />}>
        <PasskeysSection />
      </Suspense>
      <CodePromptModal
        open={prompt !== null}
        title={prompt === 'disable' ? t('twoFactor.disableTitle') : t('twoFactor.regenerateTitle')}
        allowBackup={prompt === 'disable'}
        danger={prompt === 'disable'}
        loading={disable.isPending || regenerate.isPending}
        onSubmit={(code) => (prompt === 'disable' ? disable.mutate(code) : regenerate.mutate(code))}
        onCancel={() => setPrompt(null)}
      />
    </Card>
  );
}
