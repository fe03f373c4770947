import { useQuery } from '@tanstack/react-query';
import { Button, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../../components/rich-content';
import { fetchNotice, homeKeys } from '../api';

/** Remembered instead of the notice itself: a long notice need not be copied into localStorage. */
const SEEN_KEY = 'notice_seen';

/** FNV-1a (32 bit) of the text: enough to tell one notice from the next. */
export function noticeHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${text.length}:${hash.toString(16)}`;
}

/** Shows the admin notice once per change: the hash of the last one dismissed is kept in localStorage. */
export function NoticeModal() {
  const { t } = useTranslation('home');
  const { data: notice } = useQuery({ queryKey: homeKeys.notice, queryFn: fetchNotice });
  const [dismissed, setDismissed] = useState<string | null>(null);
  const open = !!notice && notice !== dismissed && noticeHash(notice) !== localStorage.getItem(SEEN_KEY);

  const close = () => {
    if (!notice) return;
    localStorage.setItem(SEEN_KEY, noticeHash(notice));
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
