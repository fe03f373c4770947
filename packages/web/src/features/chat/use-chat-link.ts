import { useQuery } from '@tanstack/react-query';
import { useStatus } from '../../app/status';
import { chatKey, chatLinkUrl, configuredChats, fillTemplate, serverAddress } from '../../lib/chat-links';

export type ChatTarget = { kind: 'none' } | { kind: 'ready'; name: string; url: string } | { kind: 'loading' } | { kind: 'error'; message: string };

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
  if (key.isError) return { kind: 'error', message: key.error instanceof Error ? key.error.message : String(key.error) };
  if (!key.data) return { kind: 'loading' };
  const address = serverAddress(status);
  return chat ? { kind: 'ready', name: chat.name, url: fillTemplate(chat.template, key.data, address) } : { kind: 'ready', name: '', url: chatLinkUrl(link, key.data, address) };
}
