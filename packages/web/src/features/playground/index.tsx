import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Empty, Row } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { LinkButton } from '../../components/link-button';
import { isAdmin } from '../../lib/roles';
import { fetchBalance, fetchUserGroups, fetchUserModels, playgroundKeys } from './api';
import { Composer } from './components/composer';
import { MessageItem } from './components/message-item';
import { SettingsPanel } from './components/settings-panel';
import { loadSettings, saveSettings, type PlaygroundSettings } from './storage';
import { useConversation } from './use-conversation';
import './playground.css';

/**
 * Models that read images (OpenAI's, Anthropic's and Google's multimodal families and the common
 * open vision models): the image button is offered for these only.
 */
const VISION = /gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|chatgpt-4o|^o[134]|claude-3|claude-(sonnet|opus|haiku)-4|gemini|vision|-vl|glm-4v|llava|pixtral|qwen.*vl/i;

/** The playground (spec screens 13): try the user's models from the console, billed like any call. */
export default function PlaygroundPage() {
  const { t } = useTranslation('playground');
  const [saved, setSettings] = useState<PlaygroundSettings>(loadSettings);
  const groups = useQuery({ queryKey: playgroundKeys.groups, queryFn: fetchUserGroups });
  // The saved group while it is still usable, else the first usable one (the user's own comes first).
  const groupNames = Object.keys(groups.data ?? {});
  const settings = groupNames.length && !groupNames.includes(saved.group) ? { ...saved, group: groupNames[0]! } : saved;
  const models = useQuery({ queryKey: playgroundKeys.models, queryFn: fetchUserModels });
  const quota = useQuery({ queryKey: playgroundKeys.self, queryFn: fetchBalance });
  const { messages, busy, send, retry, stop, clear } = useConversation(settings);
  const bottom = useRef<HTMLDivElement>(null);

  const change = useCallback((patch: Partial<PlaygroundSettings>) => {
    setSettings((s) => {
      const next = { ...s, ...patch };
      saveSettings(next);
      return next;
    });
  }, []);

  const lastText = messages.at(-1)?.content.length ?? 0;
  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length, lastText]);

  const modelList = models.data ?? [];
  // An admin is the one who can fix it: point them at the channels instead of "contact the administrator".
  const admin = isAdmin(useSession().user);
  const noModel = admin ? t('chat.noModelAdmin') : t('chat.noModel');
  const blocked = models.isSuccess && modelList.length === 0 ? noModel : !settings.model ? t('chat.pickModel') : undefined;

  return (
    // On a phone the conversation comes first and the settings follow it.
    <Row gutter={[16, 16]} className="mg-pg">
      <Col xs={{ span: 24, order: 2 }} lg={{ span: 8, order: 1 }} xl={{ span: 6, order: 1 }}>
        <SettingsPanel
          settings={settings}
          onChange={change}
          groups={groups.data ?? {}}
          models={modelList}
          modelsLoading={models.isLoading}
          quota={quota.data}
          canClear={messages.length > 0}
          onClear={clear}
        />
      </Col>
      <Col xs={{ span: 24, order: 1 }} lg={{ span: 16, order: 2 }} xl={{ span: 18, order: 2 }}>
        <Card size="small" className="mg-pg-chat" title={t('chat.title')} styles={{ body: { padding: 0 } }}>
          <div className="mg-pg-messages" role="log" aria-live="polite" aria-label={t('chat.title')}>
            {models.isSuccess && modelList.length === 0 && (
              <Alert
                type="warning"
                showIcon
                message={noModel}
                action={admin ? <LinkButton to="/channel" size="small">{t('chat.openChannels')}</LinkButton> : undefined}
              />
            )}
            {messages.length === 0 ? (
              <Empty className="mg-pg-empty" description={t('chat.empty')} />
            ) : (
              messages.map((m) => <MessageItem key={m.id} message={m} idle={!busy} onRetry={retry} />)
            )}
            <div ref={bottom} />
          </div>
          <Composer busy={busy} blockedReason={blocked} vision={VISION.test(settings.model)} onSend={send} onStop={stop} />
        </Card>
      </Col>
    </Row>
  );
}
