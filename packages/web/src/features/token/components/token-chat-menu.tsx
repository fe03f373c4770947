import { CommentOutlined, DownOutlined } from '@ant-design/icons';
import { Button, Dropdown, type MenuProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { chatLinkUrl, configuredChats, fillTemplate, serverAddress } from '../../../lib/chat-links';
import type { Token } from '../api';

/**
 * The token row's chat shortcuts: each configured chat client (the Chats option) and the ChatLink /
 * ChatLink2 clients, opened in a new tab with this token's key. Nothing shows when none is set.
 */
export function TokenChatMenu({ token }: { token: Token }) {
  const { t } = useTranslation('token');
  const { status } = useStatus();
  const address = serverAddress(status);
  const link = (name: 'chat_link' | 'chat_link2') => (typeof status[name] === 'string' ? status[name].trim() : '');
  const targets = [
    ...(link('chat_link') ? [{ key: 'chat_link', label: t('chat.link'), url: chatLinkUrl(link('chat_link'), token.key, address) }] : []),
    ...(link('chat_link2') ? [{ key: 'chat_link2', label: t('chat.link2'), url: chatLinkUrl(link('chat_link2'), token.key, address) }] : []),
    ...configuredChats(status).map((c, i) => ({ key: `chat-${i}`, label: c.name, url: fillTemplate(c.template, token.key, address) })),
  ];
  if (!targets.length) return null;
  const open = (url: string) => window.open(url, '_blank', 'noopener,noreferrer');
  const items: MenuProps['items'] = targets.map(({ key, label }) => ({ key, label }));
  return (
    <Dropdown
      trigger={['click']}
      menu={{ items, onClick: ({ key }) => open(targets.find((x) => x.key === key)!.url) }}
    >
      <Button type="link" size="small" icon={<CommentOutlined />} aria-label={t('chat.open')}>
        {t('chat.open')} <DownOutlined />
      </Button>
    </Dropdown>
  );
}
