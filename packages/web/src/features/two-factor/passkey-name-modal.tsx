import { PASSKEY_NAME_MAX_LENGTH } from '@modelgate/shared';
import { Form, Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

interface PasskeyNameModalProps {
  open: boolean;
  title: string;
  /** A line above the field (what happens next). */
  hint?: string;
  initialName: string;
  okText: string;
  loading: boolean;
  onSubmit: (name: string) => void;
  onCancel: () => void;
}

/** Asks for a passkey's name: before registering one, and to rename one. */
export function PasskeyNameModal({ open, title, hint, initialName, okText, loading, onSubmit, onCancel }: PasskeyNameModalProps) {
  const { t } = useTranslation('passkey');
  const [form] = Form.useForm<{ name: string }>();
  return (
    <Modal
      open={open}
      title={title}
      okText={okText}
      cancelText={t('common:action.cancel')}
      okButtonProps={{ loading }}
      onOk={() => form.submit()}
      onCancel={onCancel}
      afterClose={() => form.resetFields()}
      destroyOnHidden
    >
      {hint && <Typography.Paragraph type="secondary">{hint}</Typography.Paragraph>}
      <Form form={form} layout="vertical" name="passkey-name" initialValues={{ name: initialName }} onFinish={({ name }) => onSubmit(name.trim())}>
        <Form.Item name="name" label={t('name')} rules={[{ required: true, whitespace: true, message: t('nameRequired') }]}>
          <Input placeholder={t('namePlaceholder')} maxLength={PASSKEY_NAME_MAX_LENGTH} autoFocus />
        </Form.Item>
      </Form>
    </Modal>
  );
}
