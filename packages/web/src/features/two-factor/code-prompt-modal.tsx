import { Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';

interface CodePromptModalProps {
  open: boolean;
  title: string;
  /** A backup code is accepted as well (turning off); regeneration takes an app code only. */
  allowBackup: boolean;
  danger?: boolean;
  loading: boolean;
  onSubmit: (code: string) => void;
  onCancel: () => void;
}

/** Asks for a code before a change to the second factor itself. */
export function CodePromptModal({ open, title, allowBackup, danger, loading, onSubmit, onCancel }: CodePromptModalProps) {
  const { t } = useTranslation('setting');
  const [form] = Form.useForm<{ code: string }>();
  return (
    <Modal
      open={open}
      title={title}
      okText={t('twoFactor.confirm')}
      cancelText={t('common:action.cancel')}
      okButtonProps={{ danger, loading }}
      onOk={() => form.submit()}
      onCancel={onCancel}
      afterClose={() => form.resetFields()}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" name="two-factor-code" onFinish={({ code }) => onSubmit(code.trim())}>
        <Form.Item
          name="code"
          label={allowBackup ? t('twoFactor.codeOrBackup') : t('twoFactor.code')}
          rules={[{ required: true, whitespace: true, message: t('twoFactor.codeRequired') }]}
        >
          <Input autoComplete="one-time-code" maxLength={32} autoFocus />
        </Form.Item>
      </Form>
    </Modal>
  );
}
