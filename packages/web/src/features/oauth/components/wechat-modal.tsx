import { Button, Form, Image, Input, Modal, Typography } from 'antd';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The WeChat dialog of spec §2: the official account's QR code and the code it replies with. */
export function WeChatModal({ open, qrcode, onCancel, onSubmit }: { open: boolean; qrcode: string; onCancel: () => void; onSubmit: (code: string) => Promise<unknown> }) {
  const { t } = useTranslation('auth');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  // The code is kept in state, not in a named form field: tie the label to the input by hand.
  const inputId = useId();
  const submit = async () => {
    if (!code.trim()) return;
    setBusy(true);
    try {
      await onSubmit(code.trim());
      setCode('');
    } catch {
      // The API client already showed the server's message.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open={open} title={t('oauth.wechatTitle')} onCancel={onCancel} footer={null} destroyOnHidden centered>
      <div className="mg-wechat-modal">
        {qrcode && <Image src={qrcode} alt={t('oauth.wechatQr')} width={200} preview={false} />}
        <Typography.Paragraph type="secondary">{t('oauth.wechatHint')}</Typography.Paragraph>
        <Form layout="vertical" onFinish={() => void submit()}>
          <Form.Item label={t('oauth.wechatCode')} htmlFor={inputId}>
            <Input id={inputId} value={code} onChange={(e) => setCode(e.target.value)} placeholder={t('oauth.wechatCodePlaceholder')} />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={busy} disabled={!code.trim()}>
            {t('oauth.wechatSubmit')}
          </Button>
        </Form>
      </div>
    </Modal>
  );
}
