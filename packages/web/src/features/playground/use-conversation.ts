import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { randomAlphanumeric } from '../../lib/random';
import { ChatError, readAnswerLog, streamChat, type ContentPart, type WireMessage } from './api';
import { loadConversation, saveConversation, type ChatMessage, type PlaygroundSettings } from './storage';

function toWire(m: ChatMessage): WireMessage {
  if (m.role === 'user' && m.images?.length) {
    const parts: ContentPart[] = [{ type: 'text', text: m.content }, ...m.images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))];
    return { role: 'user', content: parts };
  }
  return { role: m.role, content: m.content };
}

/**
 * The conversation: sending a turn (streamed into the last message), stopping it, retrying a turn,
 * clearing the context. Kept in localStorage after every change.
 */
export function useConversation(settings: PlaygroundSettings) {
  const [messages, setMessages] = useState<ChatMessage[]>(loadConversation);
  const controller = useRef<AbortController | null>(null);
  const queryClient = useQueryClient();
  const busy = messages.some((m) => m.status === 'loading' || m.status === 'incomplete');

  useEffect(() => {
    // Saved once a turn settles, not on every streamed piece of text.
    if (!busy) saveConversation(messages);
  }, [messages, busy]);
  useEffect(() => () => controller.current?.abort(), []);

  const patch = useCallback((id: string, change: Partial<ChatMessage> | ((m: ChatMessage) => Partial<ChatMessage>)) => {
    setMessages((all) => all.map((m) => (m.id === id ? { ...m, ...(typeof change === 'function' ? change(m) : change) } : m)));
  }, []);

  /** Answers the conversation `history` (which ends with the user's turn). */
  const answer = useCallback(
    async (history: ChatMessage[]) => {
      const answerId = randomAlphanumeric(12);
      setMessages([...history, { id: answerId, role: 'assistant', content: '', status: 'loading' }]);
      const abort = new AbortController();
      controller.current = abort;
      const { group, model } = settings;
      const since = Math.floor(Date.now() / 1000) - 1;
      const wire = history.filter((m) => m.status !== 'error' || m.role === 'user').map(toWire);
      if (settings.systemPrompt.trim()) wire.unshift({ role: 'system', content: settings.systemPrompt });
      let outcome: 'complete' | 'stopped' | 'error' = 'complete';
      try {
        await streamChat(
          { model, group, messages: wire, temperature: settings.temperature, top_p: settings.topP, max_tokens: settings.maxTokens },
          abort.signal,
          (text) => patch(answerId, (m) => ({ content: m.content + text, status: 'incomplete' })),
        );
        patch(answerId, { status: 'complete' });
      } catch (err) {
        if (abort.signal.aborted) {
          outcome = 'stopped';
          patch(answerId, { status: 'stopped' });
        } else {
          outcome = 'error';
          patch(answerId, { status: 'error', error: err instanceof ChatError || err instanceof Error ? err.message : String(err) });
        }
      } finally {
        if (controller.current === abort) controller.current = null;
      }
      // A refused turn cost nothing; a stopped or broken one is billed for what was delivered.
      const cost = await readAnswerLog(group, model, since).catch(() => null);
      if (cost || outcome !== 'error') patch(answerId, { cost });
      // The balance in the header and the wallet moved.
      void queryClient.invalidateQueries({ queryKey: ['user', 'self'] });
    },
    [patch, queryClient, settings],
  );

  const send = useCallback(
    (text: string, images: string[]) => {
      const turn: ChatMessage = { id: randomAlphanumeric(12), role: 'user', content: text, status: 'complete', ...(images.length ? { images } : {}) };
      void answer([...messages, turn]);
    },
    [answer, messages],
  );

  /** Asks again: from a user message, that turn; from an answer, the turn before it. */
  const retry = useCallback(
    (id: string) => {
      const at = messages.findIndex((m) => m.id === id);
      if (at < 0) return;
      const end = messages[at]!.role === 'user' ? at + 1 : at;
      const history = messages.slice(0, end);
      if (history.at(-1)?.role !== 'user') return;
      void answer(history);
    },
    [answer, messages],
  );

  const stop = useCallback(() => controller.current?.abort(), []);
  const clear = useCallback(() => {
    controller.current?.abort();
    setMessages([]);
  }, []);

  return { messages, busy, send, retry, stop, clear };
}
