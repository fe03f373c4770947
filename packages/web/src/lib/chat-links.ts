import { TokenStatus } from '@modelgate/shared';
import type { Token } from '@modelgate/shared/api';
import i18n from '../i18n';
import { call } from './api';
import type { StoredStatus } from './storage';

/**
 * Chat clients opened with the user's key (console-api.md §5 `/chat/:id`, `/chat2link`, the token
 * list's chat shortcuts). A `Chats` entry is `{"Name": "https://client/…{key}…{address}…"}`; the
 * older ChatLink / ChatLink2 options are a NextChat-style client address, given the key and the
 * server address in its `#/?settings=` fragment.
 */

export interface ChatClient {
  name: string;
  template: string;
}

/** The server address the client should call: the configured one, else this console's origin. */
export function serverAddress(status: Pick<StoredStatus, 'server_address'>): string {
  const configured = typeof status.server_address === 'string' ? status.server_address.trim() : '';
  return (configured || window.location.origin).replace(/\/+$/, '');
}

export function configuredChats(status: Pick<StoredStatus, 'chats'>): ChatClient[] {
  const chats = Array.isArray(status.chats) ? status.chats : [];
  return chats.flatMap((entry) => {
    if (!entry || typeof entry !== 'object') return [];
    const [name, template] = Object.entries(entry)[0] ?? [];
    return name && typeof template === 'string' ? [{ name, template }] : [];
  });
}

/** `{key}` → `sk-<key>`, `{address}` → the encoded server address (the reference's substitution). */
export function fillTemplate(template: string, key: string, address: string): string {
  return template.replaceAll('{address}', encodeURIComponent(address)).replaceAll('{key}', `sk-${key}`);
}

/** A ChatLink / ChatLink2 client: a template when it names `{key}`, else a NextChat-style address. */
export function chatLinkUrl(link: string, key: string, address: string): string {
  if (link.includes('{key}')) return fillTemplate(link, key, address);
  const settings = JSON.stringify({ key: `sk-${key}`, url: address });
  return `${link.replace(/\/+$/, '')}/#/?settings=${encodeURIComponent(settings)}`;
}

/**
 * The key a chat client gets: the user's first enabled token (the reference reads the first 100),
 * or, when there is none, a new unlimited token made for the purpose — so opening a chat works
 * for a user who never made a token. Spending from it is the user's balance, as in the console.
 */
export async function chatKey(): Promise<string> {
  const enabled = (tokens: Token[] | null | undefined) => (Array.isArray(tokens) ? tokens : []).find((tk) => tk.status === TokenStatus.Enabled);
  const found = enabled(await call('GET /api/token/', { query: { p: 0, size: 100 } }));
  if (found) return found.key;
  const created = await call('POST /api/token/', {
    body: { name: i18n.t('common:chatToken.name'), unlimited_quota: true, remain_quota: 0, expired_time: -1 },
  });
  const token = Array.isArray(created) ? created[0] : created;
  if (!token?.key) throw new Error(i18n.t('common:chatToken.failed'));
  return token.key;
}
