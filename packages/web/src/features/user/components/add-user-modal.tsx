import { USERNAME_MAX_LENGTH } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import type { CreateUserBody } from '@modelgate/shared/api';
import { createUser } from '../api';

/** The add-user form: the fields of the create body it asks for, all required. */
type AddUserValues = Required<Pick<CreateUserBody, 'username' | 'display_name' | 'password'>>;

interface AddUserModalProps {
  open: boolean;
  onClose: () => void;
  onCreated: () => void;
}

export function AddUserModal({ open, onClose, onCreated }: AddUserModalProps) {
  const { t } = useTranslation('user');
  const [form] = Form.useForm<AddUserValues>();
  const mutation = useMutation({
    mutationFn: createUser,
    onSuccess: () => {
      showSuccess(t('add.success'));
      onCreated();
      onClose();
    },
  });

  const submit = (values: AddUserValues) =>
    mutation.mutate({
      username: values.username.trim(),
      // The reference falls back to the username when no display name is given.
      display_name: (values.display_name ?? '').trim() || values.username.trim(),
      password: values.password,
    });

  return (
    <Modal
      open={open}
      title={t('add.title')}
      okText={t('add.submit')}
      cancelText={t('common:action.cancel')}
      confirmLoading={mutation.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      afterClose={() => form.resetFields()}
      forceRender
    >
      <Form form={form} layout="vertical" onFinish={submit} name="add-user">
        <Form.Item
          name="username"
          label={t('field.username')}
          rules={[
            { required: true, whitespace: true, message: t('add.usernameRequired') },
            { max: USERNAME_MAX_LENGTH, message: t('add.usernameTooLong', { max: USERNAME_MAX_LENGTH }) },
          ]}
        >
          <Input count={{ show: true, max: USERNAME_MAX_LENGTH }} autoComplete="off" />
        </Form.Item>
        <Form.Item name="display_name" label={t('field.displayName')}>
          <Input autoComplete="off" />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('field.password')}
          rules={[{ required: true, message: t('add.passwordRequired') }]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
