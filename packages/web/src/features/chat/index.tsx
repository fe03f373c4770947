import { Alert, Empty, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useChatLink } from './use-chat-link';
import './chat.css';

/** `/chat/:id` (spec screen 14): the configured chat client, embedded, with the user's key filled in. */
export default function ChatPage() {
  const { t } = useTranslation('chat');
  const { id } = useParams();
  const target = useChatLink(id);
  if (target.kind === 'none') return <Empty description={t('none')} />;
  if (target.kind === 'error') return <Alert type="error" showIcon message={t('keyFailed')} description={target.message} />;
  if (target.kind === 'loading') return <Spin className="mg-chat-loading" aria-label={t('loading')} />;
  return <iframe className="mg-chat-frame" src={target.url} title={target.name || t('frameTitle')} data-testid="chat-frame" allow="clipboard-read; clipboard-write" />;
}
