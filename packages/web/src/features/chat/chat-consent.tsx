import { Button, Card, Result, Space, Typography } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useSession } from '../../app/session';
import { maskedKey } from '../../lib/chat-links';

const CONSENT_KEY = 'chat-consent';

/**
 * Sites the user agreed to send their key to, remembered per browser: asked again when the admin
 * points the chat at another host (issue 35: the key went to a third-party site unannounced).
 */
function consentedSites(): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(CONSENT_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

export function useSiteConsent(site: string | null): [boolean, () => void] {
  // Read on each render (a cheap localStorage read); the counter only re-renders after a consent.
  const [, setGiven] = useState(0);
  const give = () => {
    if (!site) return;
    localStorage.setItem(CONSENT_KEY, JSON.stringify([...new Set([...consentedSites(), site])]));
    setGiven((n) => n + 1);
  };
  return [!!site && consentedSites().includes(site), give];
}

/** The confirm step: which site gets which key, before the client is opened or redirected to. */
export function ChatConsent(props: { site: string; tokenName: string; tokenKey: string; onConfirm: () => void }) {
  const { t } = useTranslation('chat');
  return (
    <Card className="mg-chat-consent" title={t('consent.title')} data-testid="chat-consent">
      <Typography.Paragraph>{t('consent.body', { site: props.site })}</Typography.Paragraph>
      <Typography.Paragraph>
        {t('consent.token', { name: props.tokenName || t('consent.unnamed') })} <Typography.Text code>{maskedKey(props.tokenKey)}</Typography.Text>
      </Typography.Paragraph>
      <Typography.Paragraph type="secondary">{t('consent.scope')}</Typography.Paragraph>
      <Button type="primary" onClick={props.onConfirm}>
        {t('consent.confirm', { site: props.site })}
      </Button>
    </Card>
  );
}

/** No enabled token: said, then on to /token after 1.5 s (spec §8), with a button for the impatient. */
export function NoChatToken() {
  const { t } = useTranslation('chat');
  const navigate = useNavigate();
  useEffect(() => {
    const timer = window.setTimeout(() => void navigate('/token'), 1500);
    return () => window.clearTimeout(timer);
  }, [navigate]);
  return (
    <Result
      status="warning"
      title={t('noToken')}
      extra={
        <Space>
          <Button type="primary" onClick={() => void navigate('/token')}>
            {t('toTokens')}
          </Button>
        </Space>
      }
    />
  );
}

/**
 * The chat routes are public (spec §2): a visitor is told that chatting needs a sign-in, with the
 * way to it, and no call is made (the key lookup would answer 401 and bounce to the login page).
 */
export function ChatSignInGate({ children }: { children: ReactNode }) {
  const { t } = useTranslation('chat');
  const { user } = useSession();
  if (user) return <>{children}</>;
  return (
    <Result
      status="info"
      title={t('signIn.title')}
      subTitle={t('signIn.body')}
      data-testid="chat-sign-in"
      extra={
        <Link to="/login">
          <Button type="primary">{t('signIn.action')}</Button>
        </Link>
      }
    />
  );
}
