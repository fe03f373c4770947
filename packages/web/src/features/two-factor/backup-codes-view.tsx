import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { Alert, Button, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../lib/clipboard';

/** Ten one-time codes, shown once (only their hashes are kept): copy or download them now. */
export function BackupCodesView({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation('setting');
  const text = codes.join('\n');
  const download = () => {
    const url = URL.createObjectURL(new Blob([`${text}\n`], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'backup-codes.txt';
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Space orientation="vertical" size="middle" className="mg-stack">
      <Alert type="warning" showIcon title={t('twoFactor.backupTitle')} description={t('twoFactor.backupOnce')} />
      <ol className="mg-backup-codes" data-testid="backup-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <Space wrap>
        <Button icon={<CopyOutlined aria-hidden />} onClick={() => void copyText(text, t('twoFactor.backupCopied'))}>
          {t('common:action.copy')}
        </Button>
        <Button icon={<DownloadOutlined aria-hidden />} onClick={download}>
          {t('twoFactor.download')}
        </Button>
        <Button type="primary" onClick={onDone}>
          {t('twoFactor.saved')}
        </Button>
      </Space>
    </Space>
  );
}
