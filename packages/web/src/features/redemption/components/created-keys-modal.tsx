import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { Button, Input, Modal, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';
import { keysCsv, keysText } from '../api';

interface CreatedKeysModalProps {
  created: { name: string; keys: string[] } | null;
  onClose: () => void;
}

function download(fileName: string, text: string): void {
  // A byte-order mark so spreadsheet programs read the names as UTF-8.
  const url = URL.createObjectURL(new Blob(['\ufeff', text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}

/** The keys of a new batch, shown once right after creation: copy them all, or save them as CSV. */
export function CreatedKeysModal({ created, onClose }: CreatedKeysModalProps) {
  const { t } = useTranslation('redemption');
  const keys = created?.keys ?? [];
  return (
    <Modal
      open={!!created}
      title={t('created.title', { count: keys.length })}
      onCancel={onClose}
      footer={
        <Space wrap>
          <Button icon={<DownloadOutlined aria-hidden />} onClick={() => download(`redemption-codes-${Date.now()}.csv`, keysCsv(created?.name ?? '', keys))}>
            {t('created.download')}
          </Button>
          <Button type="primary" icon={<CopyOutlined aria-hidden />} onClick={() => void copyText(keysText(keys), t('created.copied', { count: keys.length }))}>
            {t('created.copyAll')}
          </Button>
        </Space>
      }
    >
      <Space orientation="vertical" className="mg-stack">
        <Typography.Text type="secondary">{t('created.hint', { name: created?.name ?? '' })}</Typography.Text>
        <Input.TextArea readOnly value={keysText(keys)} autoSize={{ minRows: 3, maxRows: 12 }} aria-label={t('created.keys')} className="mg-redemption-keys" />
      </Space>
    </Modal>
  );
}
