import { CloseCircleFilled, PictureOutlined, SendOutlined, StopOutlined } from '@ant-design/icons';
import { Button, Input, Tooltip, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError } from '../../../lib/feedback';

/** An image is sent inline as a data URL; the relay's JSON body limit (20 MB by default) bounds the rest. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_IMAGES = 4;

function readDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsDataURL(file);
  });
}

interface ComposerProps {
  busy: boolean;
  /** Why sending is not possible now (no model), shown instead of sending. */
  blockedReason?: string;
  vision: boolean;
  onSend: (text: string, images: string[]) => void;
  onStop: () => void;
}

/** The input under the conversation: text (Enter sends, Shift+Enter breaks the line), images, send and stop. */
export function Composer({ busy, blockedReason, vision, onSend, onStop }: ComposerProps) {
  const { t } = useTranslation('playground');
  const [text, setText] = useState('');
  const [images, setImages] = useState<string[]>([]);
  const canSend = !busy && !blockedReason && (text.trim() !== '' || images.length > 0);

  const send = () => {
    if (!canSend) return;
    onSend(text.trim(), vision ? images : []);
    setText('');
    setImages([]);
  };

  const addImage = async (file: File) => {
    if (!file.type.startsWith('image/')) return showError(t('composer.notImage'));
    if (file.size > MAX_IMAGE_BYTES) return showError(t('composer.imageTooLarge', { mb: MAX_IMAGE_BYTES / 1024 / 1024 }));
    if (images.length >= MAX_IMAGES) return showError(t('composer.tooManyImages', { n: MAX_IMAGES }));
    try {
      const url = await readDataUrl(file);
      setImages((all) => [...all, url]);
    } catch {
      showError(t('composer.readFailed'));
    }
  };

  return (
    <div className="mg-pg-composer">
      {vision && images.length > 0 && (
        <div className="mg-pg-attachments">
          {images.map((url, i) => (
            <span key={i} className="mg-pg-attachment">
              <img src={url} alt={t('chat.imageAlt', { n: i + 1 })} />
              <Button
                type="text"
                size="small"
                className="mg-pg-attachment-remove"
                icon={<CloseCircleFilled />}
                aria-label={t('composer.removeImage')}
                onClick={() => setImages((all) => all.filter((_, j) => j !== i))}
              />
            </span>
          ))}
        </div>
      )}
      <Input.TextArea
        aria-label={t('composer.label')}
        value={text}
        autoSize={{ minRows: 2, maxRows: 8 }}
        placeholder={blockedReason ?? t('composer.placeholder')}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      <div className="mg-pg-composer-bar">
        <Tooltip title={vision ? t('composer.addImage') : t('composer.noVision')}>
          <Upload accept="image/*" multiple showUploadList={false} disabled={!vision || busy} beforeUpload={(file) => (void addImage(file), false)}>
            <Button icon={<PictureOutlined />} disabled={!vision || busy} aria-label={t('composer.addImage')} />
          </Upload>
        </Tooltip>
        {busy ? (
          <Button danger icon={<StopOutlined />} onClick={onStop}>
            {t('composer.stop')}
          </Button>
        ) : (
          <Button type="primary" icon={<SendOutlined />} disabled={!canSend} onClick={send}>
            {t('composer.send')}
          </Button>
        )}
      </div>
    </div>
  );
}
