import { CopyOutlined, RedoOutlined, RobotOutlined, UserOutlined } from '@ant-design/icons';
import { formatNumber, formatQuota } from '@modelgate/shared';
import { Alert, Avatar, Button, Image, Space, Spin, Tag, Tooltip, Typography } from 'antd';
import { memo, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { copyText } from '../../../lib/clipboard';
import { renderAnswer } from '../markdown';
import type { ChatMessage } from '../storage';

interface MessageItemProps {
  message: ChatMessage;
  /** Retry and copy are offered once nothing is streaming. */
  idle: boolean;
  onRetry: (id: string) => void;
}

function Answer({ content }: { content: string }) {
  const html = useMemo(() => renderAnswer(content), [content]);
  return <div className="mg-markdown mg-pg-answer" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** One turn of the conversation: the text (an answer as Markdown), its state, cost and actions. */
export const MessageItem = memo(function MessageItem({ message: m, idle, onRetry }: MessageItemProps) {
  const { t } = useTranslation('playground');
  const { quotaDisplay } = useStatus();
  const user = m.role === 'user';
  return (
    <div className={`mg-pg-message ${user ? 'mg-pg-user' : 'mg-pg-assistant'}`} data-testid={`pg-message-${m.role}`} data-status={m.status}>
      <Avatar className="mg-pg-avatar" icon={user ? <UserOutlined /> : <RobotOutlined />} />
      <div className="mg-pg-bubble">
        {user ? (
          <>
            <Typography.Paragraph className="mg-pg-text">{m.content}</Typography.Paragraph>
            {m.images?.length ? (
              <Space wrap>
                {m.images.map((url, i) => (
                  <Image key={i} src={url} width={96} height={96} className="mg-pg-thumb" alt={t('chat.imageAlt', { n: i + 1 })} />
                ))}
              </Space>
            ) : null}
          </>
        ) : m.status === 'loading' ? (
          <Spin size="small" aria-label={t('chat.thinking')} />
        ) : m.content ? (
          <Answer content={m.content} />
        ) : null}
        {m.status === 'error' && <Alert type="error" showIcon className="mg-pg-error" message={t('chat.failed')} description={m.error} />}
        <div className="mg-pg-meta">
          {m.status === 'stopped' && <Tag>{t('chat.stopped')}</Tag>}
          {!user && m.cost && (
            <Tooltip title={t('chat.costTokens', { prompt: formatNumber(m.cost.promptTokens), completion: formatNumber(m.cost.completionTokens) })}>
              <Typography.Text type="secondary" data-testid="pg-cost">
                {t('chat.cost', { value: formatQuota(m.cost.quota, quotaDisplay, 6) })}
              </Typography.Text>
            </Tooltip>
          )}
          {idle && (
            <Space size={0} className="mg-pg-actions">
              {m.content && (
                <Tooltip title={t('chat.copy')}>
                  <Button type="text" size="small" icon={<CopyOutlined />} aria-label={t('chat.copy')} onClick={() => void copyText(m.content)} />
                </Tooltip>
              )}
              <Tooltip title={t('chat.retry')}>
                <Button type="text" size="small" icon={<RedoOutlined />} aria-label={t('chat.retry')} onClick={() => onRetry(m.id)} />
              </Tooltip>
            </Space>
          )}
        </div>
      </div>
    </div>
  );
});
