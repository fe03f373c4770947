import { Button, Form, Input, Modal, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TurnstileWidget, useTurnstile } from '../../../components/turnstile';
import { call } from '../../../lib/api';
import { showError, showSuccess } from '../../../lib/feedback';
import { emailBind } from '../../oauth/api';

interface Fields {
  email: string;
  code: string;
}

/**
 * Email bind (spec §5: email and code required): a code mailed to the address proves it is yours.
 * Asking for the code passes the human check when the administrator turned it on, like registration.
 */
export function EmailBindModal({ open, onClose, onBound }: { open: boolean; onClose: () => void; onBound: () => void }) {
  const { t } = useTranslation('setting');
  const [form] = Form.useForm<Fields>();
  const [countdown, setCountdown] = useState(0);
  const [busy, setBusy] = useState(false);
  const turnstile = useTurnstile();

  useEffect(() => {
    if (countdown <= 0) return;
    const timer = setTimeout(() => setCountdown((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [countdown]);

  const sendCode = async () => {
    const email = (form.getFieldValue('email') as string | undefined)?.trim() ?? '';
    if (!email) {
      showError(t('bindings.emailRequired'));
      return;
    }
    if (!turnstile.ready) {
      showError(t('auth:turnstileWait'));
      return;
    }
    try {
      await call('GET /api/verification', { query: { email, turnstile: turnstile.token } });
      showSuccess(t('bindings.codeSent'));
      // Spec §9: 30 seconds before another code may be asked for.
      setCountdown(30);
    } catch {
      // The API client already showed the server's message.
    }
  };

  const submit = async (values: Fields) => {
    setBusy(true);
    try {
      await emailBind(values.email.trim(), values.code.trim());
      showSuccess(t('bindings.emailBound'));
      form.resetFields();
      onBound();
    } catch {
      // Shown by the API client.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open={open} title={t('bindings.emailTitle')} onCancel={onClose} footer={null} destroyOnHidden centered>
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)}>
        <Form.Item name="email" label={t('bindings.email')} rules={[{ required: true, message: t('bindings.emailRequired') }]}>
          <Input type="email" autoComplete="email" placeholder={t('bindings.emailPlaceholder')} />
        </Form.Item>
        {/* Before the code: the check's token is what asking for a code needs. */}
        {turnstile.enabled && <TurnstileWidget siteKey={turnstile.siteKey} onToken={turnstile.setToken} />}
        <Form.Item label={t('bindings.code')} required>
          <Space.Compact block>
            <Form.Item name="code" noStyle rules={[{ required: true, message: t('bindings.codeRequired') }]}>
              <Input placeholder={t('bindings.codePlaceholder')} />
            </Form.Item>
            <Button onClick={() => void sendCode()} disabled={countdown > 0}>
              {countdown > 0 ? t('bindings.resendIn', { seconds: countdown }) : t('bindings.sendCode')}
            </Button>
          </Space.Compact>
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={busy}>
          {t('bindings.emailSubmit')}
        </Button>
      </Form>
    </Modal>
  );
}
