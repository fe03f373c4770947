import { Alert, Empty, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { browser } from '../../lib/api';
import { useChatLink } from './use-chat-link';

/** `/chat2link` (spec screen 14): straight on to the chat client (`?id=` picks one of the Chats), key filled in. */
export default function ChatToLinkPage() {
  const { t } = useTranslation('chat');
  const [params] = useSearchParams();
  const target = useChatLink(params.get('id'));
  const url = target.kind === 'ready' ? target.url : null;
  useEffect(() => {
    if (url) browser.redirect(url);
  }, [url]);
  if (target.kind === 'none') return <Empty description={t('none')} />;
  if (target.kind === 'error') return <Alert type="error" showIcon message={t('keyFailed')} description={target.message} />;
  return <Spin className="mg-chat-loading" aria-label={t('redirecting')} />;
}
