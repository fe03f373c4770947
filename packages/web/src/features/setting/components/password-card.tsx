import { useMutation } from '@tanstack/react-query';
import { Button, Card, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { changePassword } from '../api';

interface PasswordFields {
  original_password: string;
  password: string;
  password2: string;
}

export function PasswordCard() {
  const { t } = useTranslation('setting');
  const [form] = Form.useForm<PasswordFields>();
  const mutation = useMutation({
    mutationFn: (values: PasswordFields) => changePassword(values.original_password, values.password),
    onSuccess: () => {
      showSuccess(t('password.changed'));
      form.resetFields();
    },
  });

  return (
    <Card title={t('password.title')}>
      <Form form={form} name="change-password" layout="vertical" onFinish={(values) => mutation.mutate(values)}>
        <Form.Item
          name="original_password"
          label={t('password.current')}
          rules={[{ required: true, message: t('password.currentRequired') }]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('password.new')}
          rules={[{ required: true, message: t('password.required') }]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          name="password2"
          label={t('password.confirm')}
          dependencies={['password']}
          rules={[
            { required: true, message: t('password.required') },
            ({ getFieldValue }) => ({
              validator: (_, value) =>
                !value || getFieldValue('password') === value
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('password.mismatch'))),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={mutation.isPending}>
          {t('password.submit')}
        </Button>
      </Form>
    </Card>
  );
}
