import { usesMaxCompletionTokens } from '../../billing/output-caps.js';
import { readUsage } from '../../billing/pricing.js';
import type { FormatSpec, WireError } from '../types.js';
import { openAIPassthrough, openAIReader, type OpenAIObject } from './stream.js';

/** Completion text of a chat or completions reply: what local counting bills when usage is missing. */
export function choicesText(json: Record<string, unknown>): string {
  const choices = Array.isArray(json.choices) ? (json.choices as Array<Record<string, unknown>>) : [];
  let text = '';
  for (const c of choices) {
    if (typeof c.text === 'string') text += c.text;
    const m = c.message as Record<string, unknown> | undefined;
    if (!m) continue;
    if (typeof m.content === 'string') text += m.content;
    if (typeof m.reasoning_content === 'string') text += m.reasoning_content;
    if (Array.isArray(m.tool_calls)) {
      for (const tc of m.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) {
        if (typeof tc.function?.name === 'string') text += tc.function.name;
        if (typeof tc.function?.arguments === 'string') text += tc.function.arguments;
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
