import { usesMaxCompletionTokens } from '../../billing/output-caps.js';
import { readUsage } from '../../billing/pricing.js';
import { isObj } from '../shared/wire.js';
import type { FormatSpec, WireError } from '../types.js';
import { openAIPassthrough, openAIReader, type OpenAIObject } from './stream.js';

/** Completion text of a chat or completions reply: what local counting bills when usage is missing. */
export function choicesText(json: Record<string, unknown>): string {
  const choices = Array.isArray(json.choices) ? (json.choices as unknown[]).filter(isObj) : [];
  let text = '';
  for (const c of choices) {
    if (typeof c.text === 'string') text += c.text;
    const m = c.message;
    if (!isObj(m)) continue;
    if (typeof m.content === 'string') text += m.content;
    if (typeof m.reasoning_content === 'string') text += m.reasoning_content;
    if (Array.isArray(m.tool_calls)) {
      for (const tc of m.tool_calls as unknown[]) {
        const fn = isObj(tc) && isObj(tc.function) ? tc.function : {};
        if (typeof fn.name === 'string') text += fn.name;
        if (typeof fn.arguments === 'string') text += fn.arguments;
      }
    }
  }
  return text;
}

export function openAIErrorBody(err: WireError): Record<string, unknown> {
  return { error: { message: err.message, type: err.type, param: err.param, code: err.code } };
}

/** Asks an OpenAI stream for its usage chunk, or removes `stream_options` where the upstream refuses it. */
function streamUsage(body: Record<string, unknown>, ask: boolean): boolean {
  if (ask) {
    const so = (body.stream_options ?? {}) as Record<string, unknown>;
    if (so.include_usage === true) return false;
    body.stream_options = { ...so, include_usage: true };
    return true;
  }
  if (body.stream_options === undefined) return false;
  delete body.stream_options;
  return true;
}

function spec(name: 'openai-chat' | 'openai-completions', object: OpenAIObject): FormatSpec {
  return {
    name,
    setModel(body, model) {
      body.model = model;
    },
    setMaxTokens(body, n, model) {
      // OpenAI reasoning models refuse max_tokens: they take max_completion_tokens.
      const field = name === 'openai-chat' && (body.max_completion_tokens !== undefined || usesMaxCompletionTokens(model)) ? 'max_completion_tokens' : 'max_tokens';
      if (field === 'max_completion_tokens') delete body.max_tokens;
      body[field] = n;
    },
    // Reasoning counts within the cap: no separate budget to keep below it.
    maxTokens(body) {
      const v = body.max_completion_tokens ?? body.max_tokens;
      return typeof v === 'number' ? v : undefined;
    },
    streamUsage,
    usage: (json) => readUsage(json.usage),
    responseText: choicesText,
    embeddedError: (json) => !!json.error && typeof json.error === 'object',
    reader: openAIReader,
    passthrough: (cx) => openAIPassthrough(object, cx),
    errorBody: openAIErrorBody,
  };
}

export const openAIChat = spec('openai-chat', 'chat.completion.chunk');
export const openAICompletions = spec('openai-completions', 'text_completion');
