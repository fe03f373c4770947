import { useQuery } from '@tanstack/react-query';
import { Button, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../../components/rich-content';
import { fetchNotice, homeKeys } from '../api';

/** Shows the admin notice once per change: the last one seen is remembered in localStorage.notice. */
export function NoticeModal() {
  const { t } = useTranslation('home');
  const { data: notice } = useQuery({ queryKey: homeKeys.notice, queryFn: fetchNotice });
  const [dismissed, setDismissed] = useState<string | null>(null);
  const open = !!notice && notice !== dismissed && notice !== localStorage.getItem('notice');

  const close = () => {
    if (!notice) return;
    localStorage.setItem('notice', notice);
    setDismissed(notice);
  };

  return (
    <Modal
      open={open}
      title={t('notice')}
      onCancel={close}
      footer={
        <Button type="primary" onClick={close}>
          {t('common:action.close')}
        </Button>
      }
      width={640}
    >
      {notice && <RichContent content={notice} frameTitle={t('notice')} />}
    </Modal>
  );
}
