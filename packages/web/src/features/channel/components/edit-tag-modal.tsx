import { useQuery } from '@tanstack/react-query';
import { Alert, Form, Input, InputNumber, Modal, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { showError } from '../../../lib/feedback';
import { useGroups } from '../../../lib/groups';
import { channelKeys, fetchAllModels, type TagEdit } from '../api';
import { buildTagEdit, type TagFormValues } from '../tag-form';

interface EditTagModalProps {
  tag: string | null;
  onClose: () => void;
  onSave: (tag: string, edit: Omit<TagEdit, 'tag'>) => void;
}

/** Edits every channel of a tag at once (spec §5 tag dialog rules). */
export function EditTagModal({ tag, onClose, onSave }: EditTagModalProps) {
  const { t } = useTranslation('channel');
  const [form] = Form.useForm<TagFormValues>();
  const open = tag !== null;
  const models = useQuery({ queryKey: channelKeys.allModels, queryFn: fetchAllModels, staleTime: 300_000, enabled: open });
  const groups = useGroups(open);

  const submit = (values: TagFormValues) => {
    if (tag === null) return;
    const result = buildTagEdit(tag, values);
    if ('problem' in result) {
      showError(t(`tagDialog.problem.${result.problem}`));
      return;
    }
    const { tag: _tag, ...edit } = result.edit;
    onSave(tag, edit);
    onClose();
  };

  return (
    <Modal
      open={open}
      title={t('tagDialog.title', { tag: tag ?? '' })}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('common:action.save')}
      cancelText={t('common:action.cancel')}
      destroyOnHidden
      forceRender={false}
    >
      <Alert type="info" showIcon className="mg-tag-alert" title={t('tagDialog.hint')} />
      <Form
        form={form}
        layout="vertical"
        name="channel-tag"
        onFinish={submit}
        initialValues={{ new_tag: tag ?? '', priority: null, weight: null, models: [], groups: [], model_mapping: '' }}
      >
        <Form.Item name="new_tag" label={t('tagDialog.newTag')} extra={t('tagDialog.newTagHint')}>
          <Input allowClear />
        </Form.Item>
        <div className="mg-form-row">
          <Form.Item name="priority" label={t('field.priority')}>
            <InputNumber className="mg-full-width" placeholder={t('tagDialog.unchanged')} />
          </Form.Item>
          <Form.Item name="weight" label={t('field.weight')}>
            <InputNumber className="mg-full-width" placeholder={t('tagDialog.unchanged')} />
          </Form.Item>
        </div>
        <Form.Item name="models" label={t('field.models')}>
          <Select
            mode="tags"
            allowClear
            placeholder={t('tagDialog.unchanged')}
            loading={models.isPending}
            options={(models.data ?? []).map((model) => ({ value: model, label: model }))}
          />
        </Form.Item>
        <Form.Item name="groups" label={t('field.groups')}>
          <Select
            mode="multiple"
            allowClear
            placeholder={t('tagDialog.unchanged')}
            loading={groups.isPending}
            options={(groups.data ?? []).map((group) => ({ value: group, label: group }))}
          />
        </Form.Item>
        <Form.Item name="model_mapping" label={t('field.model_mapping')} className="mg-json-area">
          <Input.TextArea autoSize={{ minRows: 3, maxRows: 8 }} placeholder={t('tagDialog.unchanged')} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
