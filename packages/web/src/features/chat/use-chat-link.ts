import { useQuery } from '@tanstack/react-query';
import { useStatus } from '../../app/status';
import { chatKey, chatLinkUrl, chatSite, configuredChats, fillTemplate, NoChatTokenError, serverAddress } from '../../lib/chat-links';

export type ChatTarget =
  | { kind: 'none' }
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  /** The user has no enabled token: told, and sent to /token (spec §8). */
  | { kind: 'no-token' }
  /** The configured link is not a URL (spec §8 'chat link misconfigured, contact the administrator'). */
  | { kind: 'misconfigured' }
  /** `site` is where the key goes, shown before anything is opened; `tokenName` names the key. */
  | { kind: 'ready'; name: string; url: string; site: string; tokenName: string; key: string };

/**
 * The client a chat route opens: `Chats[id]` (id 0 when absent), or the ChatLink option when one is
 * set (the reference's single chat entry), with the user's key and the server address filled in.
 */
export function useChatLink(id: string | null | undefined): ChatTarget {
  const { status } = useStatus();
  const chats = configuredChats(status);
  const index = id !== null && id !== undefined && /^\d+$/.test(id) ? Number(id) : 0;
  const chat = chats[index];
  const link = typeof status.chat_link === 'string' ? status.chat_link.trim() : '';
  const useLink = !chat && !!link;
  const key = useQuery({ queryKey: ['chat', 'key'], queryFn: chatKey, enabled: !!chat || useLink, staleTime: 60_000, retry: false });
  if (!chat && !useLink) return { kind: 'none' };
  if (key.error instanceof NoChatTokenError) return { kind: 'no-token' };
  if (key.isError) return { kind: 'error', message: key.error instanceof Error ? key.error.message : String(key.error) };
  if (!key.data) return { kind: 'loading' };
  const address = serverAddress(status);
  const url = chat ? fillTemplate(chat.template, key.data.key, address) : chatLinkUrl(link, key.data.key, address);
  const site = chatSite(url);
  if (!site) return { kind: 'misconfigured' };
  return { kind: 'ready', name: chat?.name ?? '', url, site, tokenName: key.data.name, key: key.data.key };
}
