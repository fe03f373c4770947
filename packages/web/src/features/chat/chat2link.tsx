import { Alert, Empty, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { browser } from '../../lib/api';
import { ChatConsent, ChatSignInGate, NoChatToken, useSiteConsent } from './chat-consent';
import { useChatLink } from './use-chat-link';

/** `/chat2link` (spec screen 14): on to the chat client (`?id=` picks one of the Chats), key filled in, once agreed. */
export default function ChatToLinkPage() {
  return (
    <ChatSignInGate>
      <ChatToLinkScreen />
    </ChatSignInGate>
  );
}

function ChatToLinkScreen() {
  const { t } = useTranslation('chat');
  const [params] = useSearchParams();
  const target = useChatLink(params.get('id'));
  const [consented, consent] = useSiteConsent(target.kind === 'ready' ? target.site : null);
  const url = target.kind === 'ready' && consented ? target.url : null;
  useEffect(() => {
    if (url) browser.redirect(url);
  }, [url]);
  if (target.kind === 'none') return <Empty description={t('none')} />;
  if (target.kind === 'no-token') return <NoChatToken />;
  if (target.kind === 'misconfigured') return <Alert type="error" showIcon title={t('misconfigured')} />;
  if (target.kind === 'error') return <Alert type="error" showIcon title={t('keyFailed')} description={target.message} />;
  if (target.kind === 'ready' && !consented) return <ChatConsent site={target.site} tokenName={target.tokenName} tokenKey={target.key} onConfirm={consent} />;
  return <Spin className="mg-chat-loading" aria-label={t('redirecting')} />;
}
