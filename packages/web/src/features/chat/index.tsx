import { Alert, Button, Empty, Spin, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { ChatConsent, ChatSignInGate, NoChatToken, useSiteConsent } from './chat-consent';
import { useChatLink } from './use-chat-link';
import './chat.css';

/** A client that has not loaded by then is said to be unreachable (its frame would stay grey). */
const LOAD_WAIT_MS = 15_000;

/** `/chat/:id` (spec screen 14): the configured chat client, embedded, once the user agreed to send their key there. */
export default function ChatPage() {
  return (
    <ChatSignInGate>
      <ChatScreen />
    </ChatSignInGate>
  );
}

function ChatScreen() {
  const { t } = useTranslation('chat');
  const { id } = useParams();
  const target = useChatLink(id);
  const [consented, consent] = useSiteConsent(target.kind === 'ready' ? target.site : null);
  if (target.kind === 'none') return <Empty description={t('none')} />;
  if (target.kind === 'no-token') return <NoChatToken />;
  if (target.kind === 'misconfigured') return <Alert type="error" showIcon title={t('misconfigured')} />;
  if (target.kind === 'error') return <Alert type="error" showIcon title={t('keyFailed')} description={target.message} />;
  if (target.kind === 'loading') return <Spin className="mg-chat-loading" aria-label={t('loading')} />;
  if (!consented) return <ChatConsent site={target.site} tokenName={target.tokenName} tokenKey={target.key} onConfirm={consent} />;
  return <ChatFrame url={target.url} site={target.site} title={target.name || t('frameTitle')} />;
}

/**
 * The embedded client with the site named above it. A site that refuses to be framed or cannot be
 * reached leaves a blank frame the page cannot see into, so the way out (a new tab) is always shown,
 * and a frame that never loads is said to have failed.
 */
function ChatFrame({ url, site, title }: { url: string; site: string; title: string }) {
  const { t } = useTranslation('chat');
  const [loaded, setLoaded] = useState(false);
  const [late, setLate] = useState(false);
  useEffect(() => {
    const timer = window.setTimeout(() => setLate(true), LOAD_WAIT_MS);
    return () => window.clearTimeout(timer);
  }, [url]);
  const newTab = (
    <Button size="small" href={url} target="_blank" rel="noreferrer">
      {t('openNewTab')}
    </Button>
  );
  return (
    <div className="mg-chat">
      <div className="mg-chat-bar" data-testid="chat-bar">
        <Typography.Text type="secondary">{t('frameHint', { site })}</Typography.Text>
        {newTab}
      </div>
      {late && !loaded && <Alert type="warning" showIcon className="mg-chat-alert" title={t('loadFailed', { site })} action={newTab} />}
      <iframe className="mg-chat-frame" src={url} title={title} data-testid="chat-frame" allow="clipboard-read; clipboard-write" onLoad={() => setLoaded(true)} />
    </div>
  );
}
