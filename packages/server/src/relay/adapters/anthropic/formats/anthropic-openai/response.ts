import type { Usage } from '@modelgate/shared';
import { readUsage } from '../../../../billing/pricing.js';
import { isObj } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';

/** OpenAI `finish_reason` → Anthropic `stop_reason` (providers-international §1.6). */
export function stopReason(finish: unknown): string {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** Normalised usage → Anthropic's: `input_tokens` is the uncached part of the prompt. */
export function anthropicUsageObject(u: Usage | undefined): Record<string, number> {
  if (!u) return { input_tokens: 0, output_tokens: 0 };
  return {
    input_tokens: Math.max(0, u.promptTokens - u.cachedTokens - u.cacheWriteTokens),
    output_tokens: u.completionTokens,
    cache_read_input_tokens: u.cachedTokens,
    cache_creation_input_tokens: u.cacheWriteTokens,
  };
}

/** A tool call's arguments as the object Messages wants (a model's malformed JSON is kept under `_raw`). */
export function toolInput(args: unknown): Record<string, unknown> {
  if (typeof args !== 'string' || !args.trim()) return {};
  try {
    const v = JSON.parse(args) as unknown;
    return isObj(v) ? v : { _raw: args };
  } catch {
    return { _raw: args };
  }
}

/** A chat completion → a Messages reply: thinking, text, then every tool call. */
export function openAIToAnthropicResponse(json: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  const choice = Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : {};
  const m = isObj(choice.message) ? choice.message : {};
  const content: Array<Record<string, unknown>> = [];
  if (typeof m.reasoning_content === 'string' && m.reasoning_content) content.push({ type: 'thinking', thinking: m.reasoning_content, signature: '' });
  if (typeof m.content === 'string' && m.content) content.push({ type: 'text', text: m.content });
  for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    if (!isObj(c)) continue;
    const fn = isObj(c.function) ? c.function : {};
    content.push({ type: 'tool_use', id: c.id, name: fn.name, input: toolInput(fn.arguments) });
  }
  return {
    id: typeof json.id === 'string' ? json.id : `msg_${cx.requestId}`,
    type: 'message',
    role: 'assistant',
    model: typeof json.model === 'string' ? json.model : cx.model,
    content,
    stop_reason: stopReason(choice.finish_reason),
    stop_sequence: null,
    usage: anthropicUsageObject(readUsage(json.usage)),
  };
}
