import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { button, popover } from '../../test/dom';
import { aLogEntry, aSelfUser } from '../../test/fixtures';
import { mockApi, ok, server } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';
import { saveConversation, saveSettings, DEFAULT_SETTINGS } from './storage';

const SYSTEM = 'You are terse.';

function seed() {
  saveSettings({ ...DEFAULT_SETTINGS, group: 'default', model: 'gpt-4o-mini', systemPrompt: SYSTEM });
  saveConversation([
    { id: 'u1', role: 'user', content: 'first question', status: 'complete' },
    { id: 'a1', role: 'assistant', content: 'first answer', status: 'complete' },
  ]);
  mockApi({
    'GET /api/user/models': () => ok(['gpt-4o-mini']),
    'GET /api/user/self/groups': () => ok({ default: { ratio: 1, desc: '默认分组' } }),
    'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)),
    'GET /api/log/self': () => ok({ items: [aLogEntry(1, { created_at: Math.floor(Date.now() / 1000) + 5 })], page: 1, page_size: 5, total: 1 }),
  });
  const bodies: Array<{ messages: Array<{ role: string; content: unknown }> }> = [];
  server.use(
    http.post('/pg/chat/completions', async ({ request }) => {
      bodies.push((await request.json()) as (typeof bodies)[number]);
      return new HttpResponse('data: {"choices":[{"delta":{"content":"ok"}}]}\n\ndata: [DONE]\n\n', { headers: { 'Content-Type': 'text/event-stream' } });
    }),
  );
  return bodies;
}

const turns = () => Array.from(document.querySelectorAll<HTMLElement>('[data-testid^="pg-message-"]'));

describe('playground: clear context', () => {
  it('clears the conversation but keeps the system message for the next turn', async () => {
    const bodies = seed();
    renderApp('/playground', PLAIN_USER);
    await waitFor(() => expect(turns()).toHaveLength(2));

    fireEvent.click(button(document, '清除上下文'));
    await screen.findByText('确定清除当前对话吗？');
    fireEvent.click(button(popover(), '清除上下文'));
    await waitFor(() => expect(turns()).toHaveLength(0));
    expect(JSON.parse(localStorage.getItem('playground-conversation') ?? 'null')).toEqual([]);
    expect((screen.getByLabelText('系统提示词') as HTMLTextAreaElement).value).toBe(SYSTEM);

    fireEvent.change(screen.getByLabelText('消息'), { target: { value: 'second question' } });
    fireEvent.click(button(document, '发送'));
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]!.messages).toEqual([
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'second question' },
    ]);
    await waitFor(() => expect(turns()).toHaveLength(2));
  });

  it('is offered in English and only while there is something to clear', async () => {
    await i18n.changeLanguage('en');
    seed();
    localStorage.setItem('playground-conversation', '[]');
    renderApp('/playground', PLAIN_USER);
    await screen.findByLabelText('System prompt');
    await waitFor(() => expect(button(document, 'Clear context').disabled).toBe(true));
  });
});
