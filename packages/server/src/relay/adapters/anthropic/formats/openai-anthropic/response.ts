import { anthropicUsage } from '../anthropic-messages/stream.js';
import { openAIUsageObject } from '../../../../formats/openai-chat/stream.js';
import { isObj } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';

/** Anthropic `stop_reason` → OpenAI `finish_reason` (providers-international §0). */
export function finishReason(stop: unknown): string | null {
  switch (stop) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return stop === null || stop === undefined ? null : 'stop';
  }
}

/** A Messages reply → a chat completion: text joined, thinking as `reasoning_content`, tool_use as tool_calls. */
export function anthropicToOpenAIResponse(json: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  let text = '';
  let reasoning = '';
  const calls: Array<Record<string, unknown>> = [];
  for (const b of Array.isArray(json.content) ? json.content : []) {
    if (!isObj(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') text += b.text;
    else if (b.type === 'thinking' && typeof b.thinking === 'string') reasoning += b.thinking;
    else if (b.type === 'tool_use') calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
  }
  const message: Record<string, unknown> = { role: 'assistant', content: text || (calls.length ? null : ''), refusal: null };
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) message.tool_calls = calls;
  const usage = anthropicUsage(json.usage);
  const out: Record<string, unknown> = {
    id: typeof json.id === 'string' ? json.id : `chatcmpl-${cx.requestId}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof json.model === 'string' ? json.model : cx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(json.stop_reason) }],
  };
  if (usage) out.usage = openAIUsageObject(usage);
  return out;
}
