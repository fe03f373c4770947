import type { OAuthProvider, OAuthResult, SessionUser, TwoFactorChallenge } from '@modelgate/shared/api';
import { browser, call, callEnvelope } from '../../lib/api';

export type { OAuthProvider };

/** Sends the browser to the provider's authorize page (a fresh state bound to this browser, the stored invite code). */
export async function startOAuth(type: OAuthProvider): Promise<void> {
  const url = await call('GET /api/oauth/authorize', { query: { type, aff: localStorage.getItem('aff') ?? undefined } });
  browser.redirect(url);
}

/** The callback: signs in (`SessionUser`, or the second factor's challenge) or binds (`"bind"`); a failure toasts and throws. */
export async function finishOAuth(type: OAuthProvider, query: { code: string; state: string; error?: string; error_description?: string }): Promise<SessionUser | TwoFactorChallenge | 'bind'> {
  const key = `GET /api/oauth/${type}` as const;
  const envelope = (await callEnvelope(key, { query, silent: true })) as OAuthResult;
  if (!envelope.success) throw new Error(envelope.message);
  return 'data' in envelope ? envelope.data : 'bind';
}

/** Removes the caller's binding of a redirect-flow provider. */
export function unbindOAuth(type: OAuthProvider): Promise<unknown> {
  return call('DELETE /api/oauth/bind', { query: { type } });
}

export function wechatLogin(code: string): Promise<SessionUser | TwoFactorChallenge> {
  return call('GET /api/oauth/wechat', { query: { code } });
}

export function wechatBind(code: string): Promise<unknown> {
  return call('GET /api/oauth/wechat/bind', { query: { code } });
}

export function emailBind(email: string, code: string): Promise<unknown> {
  return call('GET /api/oauth/email/bind', { query: { email, code } });
}

/** Telegram's widget hands over numbers and strings; the server checks them as the strings it signed. */
export type TelegramAuth = Record<string, string | number>;
const asQuery = (auth: TelegramAuth) => Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, String(v)])) as { id: string; auth_date: string; hash: string };

export function telegramLogin(auth: TelegramAuth): Promise<SessionUser | TwoFactorChallenge> {
  return call('GET /api/oauth/telegram/login', { query: asQuery(auth) });
}

export function telegramBind(auth: TelegramAuth): Promise<unknown> {
  return call('GET /api/oauth/telegram/bind', { query: asQuery(auth) });
}
