import { openAIUsageObject } from '../../../../formats/openai-chat/stream.js';
import { cohereUsage } from '../cohere-chat/spec.js';
import { isObj } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';

/** Cohere `finish_reason` → OpenAI's (providers-international §0). */
export function cohereFinish(reason: unknown): string | null {
  switch (reason) {
    case undefined:
    case null:
      return null;
    case 'MAX_TOKENS':
      return 'length';
    case 'TOOL_CALL':
      return 'tool_calls';
    case 'ERROR_TOXIC':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** Text and thinking of a v2 message's content blocks. */
export function contentParts(content: unknown): { text: string; thinking: string } {
  const out = { text: '', thinking: '' };
  if (typeof content === 'string') out.text = content;
  else if (Array.isArray(content)) {
    for (const b of content) {
      if (isObj(b) && b.type === 'text' && typeof b.text === 'string') out.text += b.text;
      else if (isObj(b) && b.type === 'thinking' && typeof b.thinking === 'string') out.thinking += b.thinking;
    }
  }
  return out;
}

/** A Cohere v2 chat response → a chat completion. */
export function cohereToOpenAIResponse(json: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  const m = isObj(json.message) ? json.message : {};
  const { text, thinking } = contentParts(m.content);
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObj) : [];
  const message: Record<string, unknown> = { role: 'assistant', content: text || (calls.length ? null : ''), refusal: null };
  if (thinking) message.reasoning_content = thinking;
  if (calls.length) {
    message.tool_calls = calls.map((c) => {
      const fn = isObj(c.function) ? c.function : {};
      return { id: String(c.id ?? ''), type: 'function', function: { name: String(fn.name ?? ''), arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}) } };
    });
  }
  const usage = cohereUsage(json.usage);
  const out: Record<string, unknown> = {
    id: typeof json.id === 'string' ? `chatcmpl-${json.id}` : `chatcmpl-${cx.requestId}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: cx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: cohereFinish(json.finish_reason) ?? 'stop' }],
  };
  if (usage) out.usage = openAIUsageObject(usage);
  return out;
}
