import { Button, Form, Input, InputNumber, Switch } from 'antd';
import { channelTypeInfo } from '@modelgate/shared';
import { useTranslation } from 'react-i18next';
import { settingFlag, withSettingFlag, type ChannelFormValues } from '../channel-form';

const MAPPING_TEMPLATE = JSON.stringify({ 'gpt-3.5-turbo': 'gpt-3.5-turbo-0125' }, null, 2);
const STATUS_MAPPING_TEMPLATE = JSON.stringify({ '400': '500' }, null, 2);
const SETTING_TEMPLATE = JSON.stringify({ force_format: true }, null, 2);

function JsonField({ name, template }: { name: 'model_mapping' | 'status_code_mapping' | 'setting'; template: string }) {
  const { t } = useTranslation('channel');
  const form = Form.useFormInstance<ChannelFormValues>();
  return (
    <Form.Item
      name={name}
      label={t(`field.${name}`)}
      extra={
        <span>
          {t(`field.${name}Hint`)}{' '}
          <Button type="link" size="small" className="mg-flush" onClick={() => form.setFieldValue(name, template)}>
            {t('field.fillTemplate')}
          </Button>
        </span>
      }
      className="mg-json-area"
    >
      <Input.TextArea autoSize={{ minRows: 2, maxRows: 10 }} placeholder={template} />
    </Form.Item>
  );
}

/** DeepSeek's `thinking_to_content`: a switch over that key of the setting JSON. */
function ThinkingToContentSwitch() {
  const { t } = useTranslation('channel');
  const form = Form.useFormInstance<ChannelFormValues>();
  const type = Form.useWatch('type', form);
  const setting = Form.useWatch('setting', form);
  if (!channelTypeInfo(type)?.thinkingToContent) return null;
  const on = settingFlag(setting, 'thinking_to_content');
  return (
    <Form.Item label={t('field.thinkingToContent')} layout="horizontal" colon={false} className="mg-switch-item" extra={t('field.thinkingToContentHint')}>
      <Switch
        aria-label={t('field.thinkingToContent')}
        checked={on === true}
        disabled={on === undefined}
        onChange={(checked) => form.setFieldValue('setting', withSettingFlag(setting, 'thinking_to_content', checked))}
      />
    </Form.Item>
  );
}

/** JSON settings, auto-ban, tag, priority and weight. */
export function AdvancedFields() {
  const { t } = useTranslation('channel');
  return (
    <>
      <JsonField name="model_mapping" template={MAPPING_TEMPLATE} />
      <JsonField name="status_code_mapping" template={STATUS_MAPPING_TEMPLATE} />
      <JsonField name="setting" template={SETTING_TEMPLATE} />
      <ThinkingToContentSwitch />
      <Form.Item
        name="auto_ban"
        label={t('field.autoBan')}
        valuePropName="checked"
        layout="horizontal"
        colon={false}
        className="mg-switch-item"
        extra={t('field.autoBanHint')}
      >
        <Switch />
      </Form.Item>
      <Form.Item name="tag" label={t('field.tag')} extra={t('field.tagHint')}>
        <Input placeholder={t('field.tagPlaceholder')} autoComplete="off" />
      </Form.Item>
      <div className="mg-form-row">
        <Form.Item name="priority" label={t('field.priority')} extra={t('field.priorityHint')}>
          <InputNumber className="mg-full-width" min={-999} precision={0} />
        </Form.Item>
        <Form.Item name="weight" label={t('field.weight')} extra={t('field.weightHint')}>
          <InputNumber className="mg-full-width" min={0} precision={0} />
        </Form.Item>
      </div>
      <Form.Item name="max_input_tokens" label={t('field.maxInputTokens')} extra={t('field.maxInputTokensHint')}>
        <InputNumber className="mg-full-width" min={0} max={2_147_483_647} precision={0} />
      </Form.Item>
    </>
  );
}
