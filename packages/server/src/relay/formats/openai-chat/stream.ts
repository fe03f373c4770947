import type { Usage } from '@modelgate/shared';
import { readUsage } from '../../billing/pricing.js';
import { framesToEvents } from '../compose.js';
import { isObj, parseObject } from '../shared/wire.js';
import type { ConvertContext, EventFacts, StreamEnd, StreamReader, StreamWriter, UpstreamEvent, WireError } from '../types.js';

export type OpenAIObject = 'chat.completion.chunk' | 'text_completion';


/** `{error:{…}}` as OpenAI-compatible upstreams send it inside a stream. */
export function openAIWireError(err: unknown, status: number): WireError {
  const e = (err && typeof err === 'object' ? err : {}) as Record<string, unknown>;
  return {
    status,
    type: typeof e.type === 'string' && e.type ? e.type : 'upstream_error',
    code: e.code === undefined || e.code === null ? null : String(e.code),
    param: typeof e.param === 'string' ? e.param : null,
    message: typeof e.message === 'string' && e.message ? e.message : 'the upstream reported an error in the stream',
  };
}

/** Reads OpenAI chat / completions chunks: text of content, reasoning and tool-call deltas; the usage chunk. */
export function openAIReader(): StreamReader {
  return {
    read(ev: UpstreamEvent): EventFacts {
      const json = ev.data === '[DONE]' ? undefined : parseObject(ev.data);
      const facts: EventFacts = { json, text: '', toolCalls: 0 };
      if (!json) return facts;
      if (json.error && typeof json.error === 'object') {
        facts.error = openAIWireError(json.error, 500);
        return facts;
      }
      if (json.usage) {
        const u = readUsage(json.usage);
        if (u) {
          facts.usage = u;
          facts.usageFinal = true;
        }
      }
      const choices = json.choices;
      if (!Array.isArray(choices)) return facts;
      let text = '';
      for (const c of choices as unknown[]) {
        // A vendor's stray `null` or string in the list carries nothing (and must not throw).
        if (!isObj(c)) continue;
        if (typeof c.text === 'string') text += c.text;
        const d = c.delta;
        if (!isObj(d)) continue;
        if (typeof d.content === 'string') text += d.content;
        if (typeof d.reasoning_content === 'string') text += d.reasoning_content;
        if (Array.isArray(d.tool_calls)) {
          facts.toolCalls = Math.max(facts.toolCalls, d.tool_calls.length);
          for (const tc of d.tool_calls as unknown[]) {
            const fn = isObj(tc) && isObj(tc.function) ? tc.function : {};
            if (typeof fn.name === 'string') text += fn.name;
            if (typeof fn.arguments === 'string') text += fn.arguments;
          }
        }
      }
      facts.text = text;
      return facts;
    },
  };
}

export function openAIUsageObject(u: Usage): Record<string, unknown> {
  const out: Record<string, unknown> = { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens };
  if (u.cachedTokens || u.cacheWriteTokens) out.prompt_tokens_details = { cached_tokens: u.cachedTokens, ...(u.cacheWriteTokens ? { cache_creation_tokens: u.cacheWriteTokens } : {}) };
  if (u.reasoningTokens) out.completion_tokens_details = { reasoning_tokens: u.reasoningTokens };
  return out;
}

export function openAIErrorFrame(err: WireError): string {
  return `data: ${JSON.stringify({ error: { message: err.message, type: err.type, param: err.param, code: err.code } })}\n\n`;
}

/** The id / model / created of the chunks seen, so a synthesised usage chunk matches them. */
export interface ChunkMeta {
  id: string;
  model: string;
  created: number;
}

/** The end of an OpenAI stream: a usage chunk when the caller asked and the upstream sent none, then `[DONE]`. */
export function openAIStreamEnd(object: OpenAIObject, meta: ChunkMeta, cx: ConvertContext, e: StreamEnd, force = false): string {
  if (!cx.clientWantsUsage || (e.reported && !force)) return 'data: [DONE]\n\n';
  const chunk = {
    id: meta.id || `chatcmpl-${cx.requestId}`,
    object,
    created: meta.created || Math.floor(Date.now() / 1000),
    model: meta.model || cx.callerModel,
    choices: [],
    usage: openAIUsageObject(e.usage),
  };
  return `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`;
}

/** Writers whose chunks already follow OpenAI's chunk schema: withChunkUsageNull leaves them as they are. */
const completesChunks = new WeakSet<StreamWriter>();

/**
 * OpenAI upstream, OpenAI caller: every chunk is forwarded as it came. `[DONE]` is held back until
 * the bill is settled; a usage-only chunk the caller did not ask for (ModelGate asked for it) is
 * swallowed.
 */
export function openAIPassthrough(object: OpenAIObject, cx: ConvertContext): StreamWriter {
  const meta: ChunkMeta = { id: '', model: '', created: 0 };
  const writer: StreamWriter = {
    write(ev, facts) {
      const json = facts.json;
      if (!json || facts.error) return ev.data === '[DONE]' || facts.error ? '' : `data: ${ev.data}\n\n`;
      if (typeof json.id === 'string') meta.id = json.id;
      if (typeof json.model === 'string' && json.model) meta.model = json.model;
      if (typeof json.created === 'number') meta.created = json.created;
      if (Array.isArray(json.choices) && json.choices.length === 0 && json.usage && !cx.clientWantsUsage) return '';
      // OpenAI's chunk schema (see withChunkUsageNull): a vendor's chunk without `usage` gets `usage: null`;
      // the upstream's own bytes go out unchanged whenever it already complies (OpenAI itself).
      const data = cx.clientWantsUsage && object === 'chat.completion.chunk' && !('usage' in json) ? JSON.stringify({ ...json, usage: null }) : ev.data;
      return ev.event ? `event: ${ev.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
    },
    end: (e) => openAIStreamEnd(object, meta, cx, e),
    fail: openAIErrorFrame,
  };
  completesChunks.add(writer);
  return writer;
}

/**
 * OpenAI's chunk schema: with `stream_options.include_usage` every chunk before the usage chunk
 * carries `usage: null`. Converters and some OpenAI-compatible vendors write chunks without the
 * key; this adds it, once, where the chunks leave for an OpenAI chat caller (relay-attempt.ts).
 */
export function withChunkUsageNull(writer: StreamWriter, cx: ConvertContext): StreamWriter {
  // The pass-through writer completes its chunks from the event it already parsed: no second parse on the hot path.
  if (!cx.clientWantsUsage || completesChunks.has(writer)) return writer;
  const patch = (text: string): string => {
    if (!text.includes('chat.completion.chunk')) return text;
    return framesToEvents(text)
      .map((ev) => {
        const json = parseObject(ev.data);
        const data = json && json.object === 'chat.completion.chunk' && !('usage' in json) ? JSON.stringify({ ...json, usage: null }) : ev.data;
        return `${ev.event ? `event: ${ev.event}\n` : ''}data: ${data}\n\n`;
      })
      .join('');
  };
  return { ...writer, write: (ev, facts) => patch(writer.write(ev, facts)), end: (e) => patch(writer.end(e)) };
}

/** OpenAI's chat message schema requires `refusal` (null when none): added where a converter left it out. */
export function withMessageRefusal(body: Record<string, unknown>): Record<string, unknown> {
  if (body.object !== 'chat.completion' || !Array.isArray(body.choices)) return body;
  for (const c of body.choices as unknown[]) {
    if (isObj(c) && isObj(c.message) && !('refusal' in c.message)) c.message.refusal = null;
  }
  return body;
}
