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

/** No enabled token to give a chat client: the page says so and sends the user to /token (spec §8). */
export class NoChatTokenError extends Error {}

export interface ChatKey {
  key: string;
  /** The token's name, so the user knows which key the client receives. */
  name: string;
}

/**
 * The key a chat client gets: the user's first enabled token (the reference reads the first 100).
 * None is made on the user's behalf: a silent unlimited token was a side effect they never asked
 * for (issue 35), so a user without one is told and sent to create it.
 */
export async function chatKey(): Promise<ChatKey> {
  const tokens = await call('GET /api/token/', { query: { p: 0, size: 100 } });
  const found = (Array.isArray(tokens) ? tokens : []).find((tk: Token) => tk.status === TokenStatus.Enabled);
  if (!found) throw new NoChatTokenError(i18n.t('chat:noToken'));
  return { key: found.key, name: found.name };
}

/**
 * Where a filled chat URL sends the key, as the user is shown it before opening: the host of a web
 * client, or scheme and host of an app link (`opencat://team`); null when the link is not a URL.
 */
export function chatSite(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.host || null;
    return `${u.protocol}//${u.host}`;
  } catch {
    return null;
  }
}

/** `sk-abcd…wxyz`: enough to recognise the token, not to use it. */
export function maskedKey(key: string): string {
  return key.length > 8 ? `sk-${key.slice(0, 4)}…${key.slice(-4)}` : 'sk-…';
}
