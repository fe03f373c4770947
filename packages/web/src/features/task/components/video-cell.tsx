import { PlayCircleOutlined } from '@ant-design/icons';
import { Button, Modal, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AsyncTaskView } from '../api';

type Video = NonNullable<AsyncTaskView['video']>;

/**
 * A video task's cell: the model, length and size, and once finished a preview. The player loads
 * the gateway's own signed preview route (same origin, served sandboxed and typed by its bytes),
 * never the upstream's URL and never inline markup.
 */
export function VideoCell({ taskId, video }: { taskId: string; video: Video }) {
  const { t } = useTranslation('task');
  const [open, setOpen] = useState(false);
  return (
    <Space orientation="vertical" size={2}>
      <Space size={4} wrap>
        <Tag color="purple">{video.model}</Tag>
        <Typography.Text type="secondary">{t('video.summary', { seconds: video.seconds, size: video.size })}</Typography.Text>
      </Space>
      {video.preview_url && (
        <Button size="small" icon={<PlayCircleOutlined aria-hidden />} onClick={() => setOpen(true)} aria-label={`${t('video.preview')} ${taskId}`}>
          {t('video.preview')}
        </Button>
      )}
      <Modal open={open} title={t('video.previewTitle', { id: taskId })} onCancel={() => setOpen(false)} footer={null} width={720} destroyOnHidden>
        <video className="mg-task-video" data-testid="video-preview" src={video.preview_url} controls autoPlay muted playsInline>
          {t('video.unsupported')}
        </video>
        <Typography.Link href={video.preview_url} download={`${taskId}.mp4`}>
          {t('video.download')}
        </Typography.Link>
      </Modal>
    </Space>
  );
}
