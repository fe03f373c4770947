import { emptyUsage, type Usage } from '@modelgate/shared';
import { isObj, parseObject, plainText } from '../../../../formats/shared/wire.js';
import type { UpstreamEvent, WireError } from '../../../../formats/types.js';

/**
 * Dify's app API `POST /v1/chat-messages` (providers-international §8.4): an upstream format only,
 * reached from an OpenAI chat body. The conversation is flattened into one `query` and never kept
 * (no `conversation_id`); blocking replies are one JSON object, streams are SSE frames whose event
 * name is inside the JSON. Usage comes in `metadata.usage` (blocking reply, `message_end`).
 */

const ROLE_LABEL: Record<string, string> = { system: 'SYSTEM', developer: 'SYSTEM', user: 'USER', assistant: 'ASSISTANT', tool: 'TOOL' };

/** The OpenAI messages as one query: a `ROLE: ` header line, then the text, per message. */
export function difyQuery(messages: unknown): string {
  let out = '';
  for (const m of Array.isArray(messages) ? messages : []) {
    if (!isObj(m)) continue;
    const label = ROLE_LABEL[String(m.role)] ?? String(m.role).toUpperCase();
    out += `${label}: \n${plainText(m.content)}\n`;
  }
  return out;
}

/** OpenAI chat body → the chat-messages request. */
export function difyRequest(body: Record<string, unknown>, stream: boolean, user: string): Record<string, unknown> {
  return { inputs: {}, query: difyQuery(body.messages), response_mode: stream ? 'streaming' : 'blocking', user };
}

/** `metadata.usage` → normalised usage (Dify's prices are strings and ignored: ModelGate prices by its ratios). */
export function difyUsage(metadata: unknown): Usage | undefined {
  const u = isObj(metadata) && isObj(metadata.usage) ? metadata.usage : undefined;
  if (!u || (typeof u.prompt_tokens !== 'number' && typeof u.completion_tokens !== 'number')) return undefined;
  return { ...emptyUsage(), promptTokens: Number(u.prompt_tokens ?? 0), completionTokens: Number(u.completion_tokens ?? 0) };
}

/** A blocking reply → an OpenAI chat completion whose id is the message's conversation (never reused). */
export function difyChatCompletion(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const u = difyUsage(json.metadata);
  const out: Record<string, unknown> = {
    id: `chatcmpl-${String(json.message_id ?? json.id ?? '')}`,
    object: 'chat.completion',
    created: typeof json.created_at === 'number' ? json.created_at : Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: typeof json.answer === 'string' ? json.answer : '' }, finish_reason: 'stop' }],
  };
  if (u) out.usage = { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens };
  return out;
}

/** Dify's error body `{code,message,status}` (also the stream's `error` event). */
export function difyError(status: number, json: Record<string, unknown>): WireError | undefined {
  if (typeof json.message !== 'string' || typeof json.code !== 'string') return undefined;
  return { status, type: 'upstream_error', code: json.code, param: null, message: json.message };
}

/**
 * Dify SSE → OpenAI chunk events (read by the OpenAI chat reader and written by its passthrough
 * or a converter): `message`/`agent_message` answers → content deltas, `message_replace` → the
 * replacement text, `message_end` → finish chunk and the usage chunk, `error` → an OpenAI error
 * chunk; `ping`, `agent_thought`, `message_file`, workflow and node events carry nothing billed.
 */
export function difyEvents(model: string, requestId: string) {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id: `chatcmpl-${requestId}`, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
  return async function* (frames: AsyncIterable<UpstreamEvent>): AsyncGenerator<UpstreamEvent> {
    let first = true;
    for await (const ev of frames) {
      const json = parseObject(ev.data);
      if (!json) continue;
      const role = first ? { role: 'assistant' } : {};
      switch (json.event) {
        case 'message':
        case 'agent_message':
        case 'message_replace':
          if (typeof json.answer === 'string' && json.answer) {
            yield { event: undefined, data: chunk({ ...role, content: json.answer }, null) };
            first = false;
          }
          break;
        case 'message_end': {
          yield { event: undefined, data: chunk(role, 'stop') };
          const u = difyUsage(json.metadata);
          if (u) {
            const usage = { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens };
            yield { event: undefined, data: JSON.stringify({ id: `chatcmpl-${requestId}`, object: 'chat.completion.chunk', created, model, choices: [], usage }) };
          }
          return;
        }
        case 'error': {
          const err = difyError(Number(json.status ?? 500), json) ?? { status: 500, type: 'upstream_error', code: null, param: null, message: 'Dify reported an error in the stream' };
          yield { event: undefined, data: JSON.stringify({ error: { message: err.message, type: err.type, code: err.code, param: null } }) };
          return;
        }
        default:
          break;
      }
    }
  };
}
