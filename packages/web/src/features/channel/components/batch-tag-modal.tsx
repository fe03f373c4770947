import { Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

interface BatchTagModalProps {
  open: boolean;
  count: number;
  onClose: () => void;
  /** An empty tag removes the selected channels from their tags. */
  onSave: (tag: string) => void;
}

/** Batch mode: put the selected channels under one tag (POST /api/channel/batch/tag). */
export function BatchTagModal({ open, count, onClose, onSave }: BatchTagModalProps) {
  const { t } = useTranslation('channel');
  const [tag, setTag] = useState('');
  return (
    <Modal
      open={open}
      title={t('batchTag.title')}
      okText={t('common:action.save')}
      cancelText={t('common:action.cancel')}
      onCancel={onClose}
      onOk={() => {
        onSave(tag.trim());
        setTag('');
      }}
      destroyOnHidden
    >
      <Typography.Paragraph>{t('batchTag.description', { count })}</Typography.Paragraph>
      <Input
        value={tag}
        onChange={(event) => setTag(event.target.value)}
        placeholder={t('batchTag.placeholder')}
        aria-label={t('batchTag.placeholder')}
        allowClear
      />
    </Modal>
  );
}
