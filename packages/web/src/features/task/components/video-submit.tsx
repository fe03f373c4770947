import { VideoCameraAddOutlined } from '@ant-design/icons';
import { Button, Form, Input, InputNumber, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { submitVideo, type VideoSubmit } from '../api';

interface Values {
  model: string;
  prompt: string;
  duration?: number | null;
  size?: string;
  image?: string;
}

/** The `/task` screen's "Generate video": a video task billed to the signed-in user (`/pg/video/generations`). */
export function VideoSubmitButton({ onSubmitted }: { onSubmitted: () => void }) {
  const { t } = useTranslation('task');
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [form] = Form.useForm<Values>();

  const submit = async (v: Values) => {
    const body: VideoSubmit = { model: v.model.trim(), prompt: v.prompt };
    if (v.duration) body.duration = v.duration;
    if (v.size?.trim()) body.size = v.size.trim();
    if (v.image?.trim()) body.image = v.image.trim();
    setBusy(true);
    try {
      const task = await submitVideo(body);
      showSuccess(t('video.submitted', { id: task.task_id }));
      setOpen(false);
      form.resetFields(['prompt', 'image']);
      onSubmitted();
    } catch (error) {
      showError(t('video.failed', { message: error instanceof Error ? error.message : String(error) }));
    } finally {
      setBusy(false);
    }
  };

  const required = (field: string) => [{ required: true, whitespace: true, message: t('video.required', { field }) }];
  return (
    <>
      <Button type="primary" icon={<VideoCameraAddOutlined aria-hidden />} onClick={() => setOpen(true)}>
        {t('video.new')}
      </Button>
      <Modal open={open} title={t('video.formTitle')} onCancel={() => setOpen(false)} okText={t('video.submit')} cancelText={t('video.cancel')} confirmLoading={busy} onOk={() => form.submit()} destroyOnHidden>
        <Form<Values> form={form} layout="vertical" initialValues={{ model: 'sora-2' }} onFinish={(v) => void submit(v)}>
          <Form.Item name="model" label={t('video.model')} rules={required(t('video.model'))}>
            <Input placeholder={t('video.modelPlaceholder')} />
          </Form.Item>
          <Form.Item name="prompt" label={t('video.prompt')} rules={required(t('video.prompt'))}>
            <Input.TextArea rows={3} maxLength={32_000} placeholder={t('video.promptPlaceholder')} />
          </Form.Item>
          <Form.Item name="duration" label={t('video.seconds')}>
            <InputNumber min={1} max={600} precision={0} placeholder={t('video.secondsPlaceholder')} className="mg-task-video-seconds" />
          </Form.Item>
          <Form.Item name="size" label={t('video.size')}>
            <Input placeholder={t('video.sizePlaceholder')} />
          </Form.Item>
          <Form.Item name="image" label={t('video.image')}>
            <Input placeholder={t('video.imagePlaceholder')} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
