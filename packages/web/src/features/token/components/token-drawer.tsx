import { TOKEN_NAME_MAX_LENGTH } from '@modelgate/shared';
import { Button, Drawer, Form, Grid, Input, Skeleton, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TokenFormValues } from '../token-form';
import { useTokenDrawer } from '../use-token-drawer';
import { AccessFields } from './access-fields';
import { ExpiryField } from './expiry-field';
import { QuotaFields } from './quota-fields';

interface TokenDrawerProps {
  open: boolean;
  tokenId: number | null;
  onClose: () => void;
}

export function TokenDrawer({ open, tokenId, onClose }: TokenDrawerProps) {
  const { t } = useTranslation('token');
  const screens = Grid.useBreakpoint();
  const [form] = Form.useForm<TokenFormValues>();
  const drawer = useTokenDrawer(form, open, tokenId, onClose);

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={drawer.mode === 'create' ? t('drawer.createTitle') : t('drawer.editTitle')}
      size={screens.sm ? 520 : '100%'}
      destroyOnHidden
      footer={
        <Space className="mg-drawer-footer">
          <Button onClick={onClose}>{t('common:action.cancel')}</Button>
          <Button type="primary" loading={drawer.saving} disabled={drawer.loading} onClick={() => form.submit()}>
            {t('common:action.submit')}
          </Button>
        </Space>
      }
    >
      {drawer.loading ? (
        <Skeleton active paragraph={{ rows: 8 }} />
      ) : (
        <Form
          form={form}
          layout="vertical"
          onFinish={drawer.submit}
          name="token"
          initialValues={drawer.initialValues}
        >
          <Form.Item name="name" label={t('field.name')} required>
            <Input maxLength={TOKEN_NAME_MAX_LENGTH} showCount placeholder={t('field.namePlaceholder')} />
          </Form.Item>
          <ExpiryField />
          <QuotaFields mode={drawer.mode} />
          <AccessFields />
        </Form>
      )}
    </Drawer>
  );
}
