import { isObj } from '../../../../formats/shared/wire.js';
import type { FormatSpec } from '../../../../formats/types.js';
import { messagesPromptAsChat } from './count.js';
import { anthropicErrorBody } from './errors.js';
import { anthropicPassthrough, anthropicReader, anthropicUsage } from './stream.js';

/** Reply text of a Messages response (text, thinking, tool names and inputs), for local counting. */
export function messageText(json: Record<string, unknown>): string {
  const content = Array.isArray(json.content) ? (json.content as unknown[]).filter(isObj) : [];
  let text = '';
  for (const b of content) {
    if (typeof b.text === 'string') text += b.text;
    else if (typeof b.thinking === 'string') text += b.thinking;
    else if (b.type === 'tool_use') text += `${typeof b.name === 'string' ? b.name : ''}${JSON.stringify(b.input ?? {})}`;
  }
  return text;
}

/** Extended thinking's smallest budget; the budget must also stay below max_tokens (providers-international §1). */
const MIN_THINKING_BUDGET = 1024;

function enabledThinking(body: Record<string, unknown>): Record<string, unknown> | undefined {
  return isObj(body.thinking) && body.thinking.type === 'enabled' ? body.thinking : undefined;
}

/** The Anthropic Messages API (providers-international §1). */
export const anthropicMessages: FormatSpec = {
  name: 'anthropic-messages',
  setModel(body, model) {
    body.model = model;
  },
  setMaxTokens(body, n) {
    body.max_tokens = n;
    // A budget at or above the new cap is an upstream 400: lowered (a new object: the caller's body is shared by every attempt).
    const t = enabledThinking(body);
    if (t && typeof t.budget_tokens === 'number' && t.budget_tokens >= n) body.thinking = { ...t, budget_tokens: n - 1 };
  },
  maxTokens: (body) => (typeof body.max_tokens === 'number' ? body.max_tokens : undefined),
  minMaxTokens: (body) => (enabledThinking(body) ? MIN_THINKING_BUDGET + 1 : undefined),
  usage: (json) => anthropicUsage(json.usage),
  responseText: messageText,
  promptAsChat: messagesPromptAsChat,
  embeddedError: (json) => json.type === 'error',
  reader: anthropicReader,
  passthrough: anthropicPassthrough,
  errorBody: anthropicErrorBody,
};
