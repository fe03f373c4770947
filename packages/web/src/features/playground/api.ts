import type { LogEntry, UsableGroup } from '@modelgate/shared/api';
import i18n from '../../i18n';
import { browser, call, postPg } from '../../lib/api';
import { setStoredUser } from '../../lib/storage';

export type { LogEntry, UsableGroup };

export const playgroundKeys = {
  models: ['user', 'models'] as const,
  groups: ['user', 'self', 'groups'] as const,
  self: ['user', 'self'] as const,
};

/** The balance shown beside the conversation (it moves with every answer). */
export async function fetchBalance(): Promise<number> {
  return (await call('GET /api/user/self', { silent: true })).quota;
}

/** Fails with the spec's "failed to get model list" (lib/user-models). */
export { fetchUserModels } from '../../lib/user-models';

export async function fetchUserGroups(): Promise<Record<string, UsableGroup>> {
  const groups = await call('GET /api/user/self/groups');
  return groups && typeof groups === 'object' ? groups : {};
}

/** One part of an OpenAI chat message's content. */
export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface WireMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ContentPart[];
}

export interface ChatRequest {
  model: string;
  group: string;
  messages: WireMessage[];
  temperature: number;
  top_p: number;
  /** 0 = not sent (the upstream's default), spec §9. */
  max_tokens: number;
}

/** A failure the conversation shows in place of the answer. */
export class ChatError extends Error {}

/** The message of a failed call: OpenAI's `{error:{message}}` or the console envelope's `message`. */
function errorText(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    if (typeof body.error?.message === 'string' && body.error.message) return body.error.message;
    if (typeof body.message === 'string' && body.message) return body.message;
  } catch {
    // not JSON
  }
  return text.trim().slice(0, 300) || i18n.t('playground:error.status', { status });
}

/** The text of one OpenAI stream event, or the error it carries (a stream broken upstream). */
function readEvent(data: string): { text: string; error?: string } {
  try {
    const event = JSON.parse(data) as { choices?: Array<{ delta?: { content?: unknown } }>; error?: { message?: unknown } };
    if (event.error) return { text: '', error: typeof event.error.message === 'string' ? event.error.message : i18n.t('playground:error.broken') };
    const content = event.choices?.[0]?.delta?.content;
    return { text: typeof content === 'string' ? content : '' };
  } catch {
    return { text: '' };
  }
}

/**
 * Sends a playground turn to `POST /pg/chat/completions` as a stream and calls `onText` with each
 * piece of the answer. Resolves when the stream ends (`[DONE]`), rejects with ChatError on a
 * refusal or a broken stream, and with the AbortError when `signal` stops it.
 */
export async function streamChat(request: ChatRequest, signal: AbortSignal, onText: (text: string) => void): Promise<void> {
  const { max_tokens: maxTokens, ...rest } = request;
  const body = { ...rest, stream: true, ...(maxTokens > 0 ? { max_tokens: maxTokens } : {}) };
  let response: Response;
  try {
    response = await postPg('/pg/chat/completions', body, signal);
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw new ChatError(i18n.t('common:error.withMessage', { message: cause instanceof Error ? cause.message : String(cause) }));
  }
  if (response.status === 401) {
    setStoredUser(null);
    browser.redirect('/login?expired=true');
    throw new ChatError(i18n.t('common:error.sessionExpired'));
  }
  if (!response.ok || !response.body) throw new ChatError(errorText(response.status, await response.text()));

  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(buffer.indexOf('\n', end + 1) + 1);
      const data = frame
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (!data) continue;
      if (data === '[DONE]') return;
      const event = readEvent(data);
      if (event.text) onText(event.text);
      if (event.error) throw new ChatError(event.error);
    }
  }
}

export interface AnswerBill {
  quota: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * What an answer cost, read back from the user's own log: the newest playground row for the model
 * since the turn started. The log row is written when the answer is settled, which for a stopped
 * stream may be a moment after the browser let go, so a few reads are tried.
 */
export async function readAnswerLog(group: string, model: string, since: number): Promise<AnswerBill | null> {
  for (let attempt = 0; attempt < 6; attempt++) {
    const page = await call('GET /api/log/self', {
      query: { p: 1, page_size: 5, type: 2, token_name: `playground-${group}`, model_name: model, start_timestamp: since, end_timestamp: Math.floor(Date.now() / 1000) + 60, group: '' },
      silent: true,
    });
    const row = page.items.find((item) => item.created_at >= since);
    if (row) return { quota: row.quota, promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens };
    await new Promise((resolve) => setTimeout(resolve, 400 * (attempt + 1)));
  }
  return null;
}
