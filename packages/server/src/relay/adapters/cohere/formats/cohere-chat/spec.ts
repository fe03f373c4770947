import { emptyUsage, type Usage } from '@modelgate/shared';
import { isObj, parseObject } from '../../../../formats/shared/wire.js';
import type { EventFacts, FormatSpec, StreamReader, WireError } from '../../../../formats/types.js';

/** Cohere's v2 chat is this folder's own wire format (see ProviderTextFormats in formats/types.ts). */
declare module '../../../../formats/types.js' {
  interface ProviderTextFormats {
    'cohere-chat': true;
  }
}

/**
 * Cohere Chat v2 (`POST /v2/chat`, providers-international §6.2): OpenAI-like messages and tools,
 * content as typed blocks, usage in `usage.billed_units` (what Cohere bills) and `usage.tokens`,
 * SSE events typed by their `type` field. An upstream format only: no caller speaks it.
 */

/**
 * Cohere usage → normalised usage: billed units first (what Cohere charges), else raw tokens.
 * `cached_tokens` counts cache hits among the raw `tokens.input_tokens` (its preamble included);
 * billed units are already what Cohere charges after them, so a cache discount applies only to the
 * raw count — applied to billed units it would discount tokens Cohere bills in full (448 cached
 * against 5 billed in its documented example).
 */
export function cohereUsage(raw: unknown): Usage | undefined {
  if (!isObj(raw)) return undefined;
  const pick = (o: unknown) => (isObj(o) && (typeof o.input_tokens === 'number' || typeof o.output_tokens === 'number') ? o : undefined);
  const billed = pick(raw.billed_units);
  const u = billed ?? pick(raw.tokens);
  if (!u) return undefined;
  const cached = !billed && typeof raw.cached_tokens === 'number' ? raw.cached_tokens : 0;
  return { ...emptyUsage(), promptTokens: Number(u.input_tokens ?? 0), completionTokens: Number(u.output_tokens ?? 0), cachedTokens: cached };
}

/** Text of a v2 message: text and thinking blocks, tool plan, tool names and arguments (for local counting). */
export function cohereMessageText(message: unknown): string {
  if (!isObj(message)) return '';
  let out = '';
  if (typeof message.tool_plan === 'string') out += message.tool_plan;
  if (Array.isArray(message.content)) for (const b of message.content) if (isObj(b)) out += typeof b.text === 'string' ? b.text : typeof b.thinking === 'string' ? b.thinking : '';
  if (Array.isArray(message.tool_calls)) {
    for (const c of message.tool_calls) if (isObj(c) && isObj(c.function)) out += `${String(c.function.name ?? '')}${String(c.function.arguments ?? '')}`;
  }
  return out;
}

/** Cohere's error body is `{"message"}` (also in the `message-end` of a failed stream). */
export function cohereWireError(status: number, message: string): WireError {
  return { status, type: 'upstream_error', code: null, param: null, message };
}

function cohereReader(): StreamReader {
  return {
    read(ev) {
      const json = parseObject(ev.data);
      const facts: EventFacts = { json, text: '', toolCalls: 0 };
      if (!json) return facts;
      const delta = isObj(json.delta) ? json.delta : {};
      const message = isObj(delta.message) ? delta.message : {};
      switch (json.type) {
        case 'content-delta': {
          const c = isObj(message.content) ? message.content : {};
          facts.text = typeof c.text === 'string' ? c.text : typeof c.thinking === 'string' ? c.thinking : '';
          break;
        }
        case 'tool-plan-delta':
          facts.text = typeof message.tool_plan === 'string' ? message.tool_plan : '';
          break;
        case 'tool-call-start':
        case 'tool-call-delta': {
          const call = isObj(message.tool_calls) ? message.tool_calls : {};
          const fn = isObj(call.function) ? call.function : {};
          if (json.type === 'tool-call-start') facts.toolCalls = 1;
          facts.text = `${typeof fn.name === 'string' ? fn.name : ''}${typeof fn.arguments === 'string' ? fn.arguments : ''}`;
          break;
        }
        case 'message-end': {
          facts.usage = cohereUsage(delta.usage);
          facts.usageFinal = !!facts.usage;
          if (delta.finish_reason === 'ERROR') facts.error = cohereWireError(500, typeof delta.error === 'string' ? delta.error : 'the upstream reported an error in the stream');
          break;
        }
      }
      return facts;
    },
  };
}

export const cohereChatSpec: FormatSpec = {
  name: 'cohere-chat',
  setModel: (body, model) => {
    body.model = model;
  },
  setMaxTokens: (body, n) => {
    body.max_tokens = n;
  },
  maxTokens: (body) => (typeof body.max_tokens === 'number' ? body.max_tokens : undefined),
  usage: (json) => cohereUsage(json.usage),
  responseText: (json) => cohereMessageText(json.message),
  reader: cohereReader,
  // No caller speaks Cohere: were one to, its events would pass as they came.
  passthrough: () => ({ write: (ev) => `data: ${ev.data}\n\n`, end: () => '', fail: (err) => `data: ${JSON.stringify({ message: err.message })}\n\n` }),
  errorBody: (err) => ({ message: err.message }),
};
