import { useEffect, useRef } from 'react';
import type { TelegramAuth } from '../api';

declare global {
  interface Window {
    /** The login widget calls this (its `data-onauth`); a browser test can call it with a signed payload too. */
    mgTelegramAuth?: (auth: TelegramAuth) => void;
  }
}

const SCRIPT_URL = 'https://telegram.org/js/telegram-widget.js?22';

/**
 * Telegram's login widget (core.telegram.org/widgets/login) in its callback form: the signed user
 * fields reach `onAuth`, which sends them to the server with the console's session header. The
 * redirect form would make the bind a cross-site GET carrying the session cookie and no header.
 */
export function TelegramWidget({ botName, onAuth }: { botName: string; onAuth: (auth: TelegramAuth) => void }) {
  const container = useRef<HTMLDivElement>(null);
  const latest = useRef(onAuth);
  useEffect(() => {
    latest.current = onAuth;
  }, [onAuth]);

  useEffect(() => {
    window.mgTelegramAuth = (auth) => latest.current(auth);
    const host = container.current;
    const script = document.createElement('script');
    script.src = SCRIPT_URL;
    script.async = true;
    script.dataset.telegramLogin = botName;
    script.dataset.size = 'medium';
    script.dataset.requestAccess = 'write';
    script.dataset.onauth = 'window.mgTelegramAuth(user)';
    host?.appendChild(script);
    return () => {
      host?.replaceChildren();
      delete window.mgTelegramAuth;
    };
  }, [botName]);

  return <div ref={container} className="mg-telegram-widget" data-testid="telegram-widget" />;
}
