import { readUsage } from '../../billing/pricing.js';
import { openAIErrorBody } from '../openai-chat/spec.js';
import { isObj, plainText } from '../shared/wire.js';
import type { FormatSpec } from '../types.js';
import { responsesPassthrough, responsesReader } from './stream.js';

/** Reply text of a Response (output text, refusals, reasoning summaries, function calls), for local counting. */
export function responseText(json: Record<string, unknown>): string {
  let text = '';
  for (const item of Array.isArray(json.output) ? json.output.filter(isObj) : []) {
    if (item.type === 'message') {
      for (const c of Array.isArray(item.content) ? item.content.filter(isObj) : []) text += typeof c.text === 'string' ? c.text : typeof c.refusal === 'string' ? c.refusal : '';
    } else if (item.type === 'function_call') text += `${String(item.name ?? '')}${String(item.arguments ?? '')}`;
    else if (item.type === 'reasoning') text += plainText(item.summary);
  }
  return text;
}

/** A Responses request in the chat shape the local counter reads. */
export function responsesPromptAsChat(body: Record<string, unknown>): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [];
  if (typeof body.instructions === 'string' && body.instructions) messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  for (const item of Array.isArray(body.input) ? body.input.filter(isObj) : []) {
    if (item.type === 'function_call') messages.push({ role: 'assistant', content: `${String(item.name ?? '')}${String(item.arguments ?? '')}` });
    else if (item.type === 'function_call_output') messages.push({ role: 'tool', content: typeof item.output === 'string' ? item.output : plainText(item.output) });
    else if (typeof item.role === 'string') {
      const content = typeof item.content === 'string' ? item.content : (Array.isArray(item.content) ? item.content.filter(isObj) : []).map((p) => (p.type === 'input_image' ? { type: 'image_url' } : { type: 'text', text: String(p.text ?? '') }));
      messages.push({ role: item.role, content });
    }
  }
  return { messages, tools: body.tools };
}

/** The OpenAI Responses API (providers-international §9). */
export const openAIResponses: FormatSpec = {
  name: 'openai-responses',
  setModel(body, model) {
    body.model = model;
  },
  setMaxTokens(body, n) {
    body.max_output_tokens = n;
  },
  // Reasoning counts within max_output_tokens: no separate budget to keep below it.
  maxTokens: (body) => (typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined),
  usage: (json) => readUsage(json.usage),
  responseText,
  promptAsChat: responsesPromptAsChat,
  embeddedError: (json) => !!json.error && typeof json.error === 'object' && json.object !== 'response',
  reader: responsesReader,
  passthrough: responsesPassthrough,
  errorBody: openAIErrorBody,
};
