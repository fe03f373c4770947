import { Button, Form, Input, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { EXPIRY_FORMAT, EXPIRY_SHORTCUTS, expiryFromShortcut } from '../../../lib/token-expiry';

/** Free text parsed on save (spec §5), plus the never / 1 hour / 1 day / 1 month shortcuts. */
export function ExpiryField() {
  const { t } = useTranslation('token');
  const form = Form.useFormInstance();
  return (
    <Form.Item label={t('field.expiry')} extra={t('field.expiryHint')} htmlFor="token-expiry">
      <Form.Item name="expiry" noStyle>
        <Input
          id="token-expiry"
          placeholder={t('field.expiryPlaceholder', { format: EXPIRY_FORMAT.replace('YYYY', 'yyyy').replace('DD', 'dd') })} allowClear />
      </Form.Item>
      <Space wrap size={[8, 8]} className="mg-shortcuts">
        {EXPIRY_SHORTCUTS.map((shortcut) => (
          <Button key={shortcut} size="small" onClick={() => form.setFieldValue('expiry', expiryFromShortcut(shortcut))}>
            {t(`field.expiryShortcut.${shortcut}`)}
          </Button>
        ))}
      </Space>
    </Form.Item>
  );
}
