import { Button, Drawer, Form, Grid, Result, Skeleton, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ChannelFormValues } from '../channel-form';
import { useChannelDrawer } from '../use-channel-drawer';
import { AdvancedFields } from './drawer-advanced-fields';
import { BasicFields } from './drawer-basic-fields';
import { ModelFields } from './drawer-model-fields';

interface ChannelDrawerProps {
  open: boolean;
  channelId: number | null;
  onClose: () => void;
}

export function ChannelDrawer({ open, channelId, onClose }: ChannelDrawerProps) {
  const { t } = useTranslation('channel');
  const screens = Grid.useBreakpoint();
  const [form] = Form.useForm<ChannelFormValues>();
  const drawer = useChannelDrawer(form, open, channelId, onClose);

  const title = drawer.mode === 'edit' ? t('drawer.editTitle') : t('drawer.createTitle');
  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={title}
      size={screens.md ? 640 : '100%'}
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
      {drawer.failed ? (
        <Result status="warning" title={t('drawer.notFound')} />
      ) : drawer.loading ? (
        <Skeleton active paragraph={{ rows: 10 }} />
      ) : (
        <Form
          key={`${drawer.mode}-${channelId ?? 'new'}`}
          form={form}
          layout="vertical"
          name="channel"
          onFinish={drawer.submit}
          initialValues={drawer.initialValues}
        >
          <BasicFields mode={drawer.mode} channelId={channelId} />
          <ModelFields mode={drawer.mode} channelId={channelId} />
          <AdvancedFields />
        </Form>
      )}
    </Drawer>
  );
}
