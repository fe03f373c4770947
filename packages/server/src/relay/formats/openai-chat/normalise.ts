import { isObj, parseObject } from '../shared/wire.js';
import type { ConvertContext, UpstreamEvent } from '../types.js';

/**
 * OpenAI chat answers rebuilt into OpenAI's published shape (`chat.completion` and
 * `chat.completion.chunk`): what the channel setting `force_format` asks of a sloppy
 * OpenAI-compatible upstream (reference §3.4, "re-encodes every chunk"). The answer is parsed, the
 * OpenAI fields are kept (read leniently: numbers sent as strings, nulls where a value is due,
 * missing `id` / `object` / `created` / `model`) and it is serialised again; anything else the
 * upstream added is left out. `reasoning_content` is kept too: it is the reasoning text the bill
 * counts when no usage comes, and OpenAI-compatible reasoning models all send it so.
 */

type Obj = Record<string, unknown>;

const FINISH = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);
/** Other vendors' words for OpenAI's finish reasons. */
const FINISH_ALIASES: Record<string, string> = {
  eos: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  complete: 'stop',
  finished: 'stop',
  max_tokens: 'length',
  length_limit: 'length',
  tool_use: 'tool_calls',
  function_call: 'function_call',
  sensitive: 'content_filter',
  safety: 'content_filter',
};
const DELTA_ROLES = new Set(['developer', 'system', 'user', 'assistant', 'tool']);
const SERVICE_TIERS = new Set(['auto', 'default', 'flex', 'scale', 'priority', 'fast']);

/** A non-negative integer from a number or a numeric string; undefined otherwise. */
function int(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A finish reason OpenAI names, null while the choice goes on (or for what cannot be read). */
function finishReason(v: unknown): string | null {
  if (typeof v !== 'string' || v === '') return null;
  const lower = v.toLowerCase();
  if (FINISH.has(lower)) return lower;
  return FINISH_ALIASES[lower] ?? 'stop';
}

/** Only the integer fields of a token breakdown; undefined when none is left. */
function details(v: unknown): Obj | undefined {
  if (!isObj(v)) return undefined;
  const out: Obj = {};
  for (const [k, raw] of Object.entries(v)) {
    const n = int(raw);
    if (n !== undefined) out[k] = n;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * OpenAI's CompletionUsage: the three counts as integers (the total computed when missing), the
 * breakdowns kept. `input_tokens` / `output_tokens` and DeepSeek's `prompt_cache_hit_tokens` are
 * read as the bill reads them (billing/pricing.ts readUsage), so the caller sees what was billed.
 * Null stays null (the chunks before the usage chunk); undefined when there is nothing to read.
 */
export function normaliseUsage(v: unknown): Obj | null | undefined {
  if (v === null) return null;
  if (!isObj(v)) return undefined;
  const prompt = int(v.prompt_tokens) ?? int(v.input_tokens);
  const completion = int(v.completion_tokens) ?? int(v.output_tokens);
  const total = int(v.total_tokens);
  if (prompt === undefined && completion === undefined && total === undefined) return undefined;
  const out: Obj = { prompt_tokens: prompt ?? 0, completion_tokens: completion ?? 0, total_tokens: total ?? (prompt ?? 0) + (completion ?? 0) };
  const pd = details(v.prompt_tokens_details ?? v.input_tokens_details);
  const hit = int(v.prompt_cache_hit_tokens);
  if (pd || hit) out.prompt_tokens_details = { ...(hit ? { cached_tokens: hit } : {}), ...pd };
  const cd = details(v.completion_tokens_details ?? v.output_tokens_details);
  if (cd) out.completion_tokens_details = cd;
  return out;
}

/** A function call's name and arguments, both strings (arguments sent as an object are serialised). */
function functionCall(v: unknown, partial: boolean): Obj | undefined {
  if (!isObj(v)) return undefined;
  const name = str(v.name);
  const args = typeof v.arguments === 'string' ? v.arguments : v.arguments === undefined || v.arguments === null ? undefined : JSON.stringify(v.arguments);
  if (partial) return { ...(name !== undefined ? { name } : {}), ...(args !== undefined ? { arguments: args } : {}) };
  return { name: name ?? '', arguments: args ?? '' };
}

/** Tool calls of a whole message: id, `function` type, name and arguments. */
function messageToolCalls(v: unknown, cx: ConvertContext): Obj[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const calls = v.filter(isObj).map((tc, i) => ({ id: str(tc.id) || `call_${cx.requestId}_${i}`, type: 'function', function: functionCall(tc.function, false) ?? { name: '', arguments: '' } }));
  return calls.length ? calls : undefined;
}

/** Tool-call pieces of a delta: the index always, the rest as far as this chunk carries it. */
function deltaToolCalls(v: unknown): Obj[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const calls = v.filter(isObj).map((tc, i) => {
    const out: Obj = { index: int(tc.index) ?? i };
    const id = str(tc.id);
    if (id) out.id = id;
    if (id || tc.type !== undefined) out.type = 'function';
    const fn = functionCall(tc.function, true);
    if (fn) out.function = fn;
    return out;
  });
  return calls.length ? calls : undefined;
}

/** A choice's `logprobs`: null, or the object with both of its lists (each a list or null). */
function logprobs(v: unknown): Obj | null {
  if (!isObj(v) || (!Array.isArray(v.content) && !Array.isArray(v.refusal))) return null;
  return { content: Array.isArray(v.content) ? v.content : null, refusal: Array.isArray(v.refusal) ? v.refusal : null };
}

/** Text content: a string, or the text parts of a content array joined; null when there is none. */
function text(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((p) => (typeof p === 'string' ? p : isObj(p) && typeof p.text === 'string' ? p.text : '')).join('');
  return null;
}

function delta(v: unknown): Obj {
  const d = isObj(v) ? v : {};
  const out: Obj = {};
  if (typeof d.role === 'string' && DELTA_ROLES.has(d.role)) out.role = d.role;
  const content = text(d.content);
  if (content !== null) out.content = content;
  else if (d.content === null) out.content = null;
  if (typeof d.reasoning_content === 'string') out.reasoning_content = d.reasoning_content;
  const tools = deltaToolCalls(d.tool_calls);
  if (tools) out.tool_calls = tools;
  const fn = functionCall(d.function_call, true);
  if (fn) out.function_call = fn;
  if (typeof d.refusal === 'string' || d.refusal === null) out.refusal = d.refusal;
  return out;
}

function message(v: unknown, cx: ConvertContext): Obj {
  const m = isObj(v) ? v : {};
  const out: Obj = { role: 'assistant', content: text(m.content), refusal: typeof m.refusal === 'string' ? m.refusal : null };
  if (typeof m.reasoning_content === 'string') out.reasoning_content = m.reasoning_content;
  const tools = messageToolCalls(m.tool_calls, cx);
  if (tools) out.tool_calls = tools;
  const fn = functionCall(m.function_call, false);
  if (fn) out.function_call = fn;
  if (Array.isArray(m.annotations)) out.annotations = m.annotations;
  return out;
}

/** The top-level fields both shapes share; `meta` keeps a stream's id and timestamp the same on every chunk. */
function head(json: Obj, object: string, cx: ConvertContext, meta: { id?: string; created?: number }): Obj {
  meta.id = str(json.id) || meta.id || `chatcmpl-${cx.requestId}`;
  meta.created = int(json.created) ?? meta.created ?? Math.floor(Date.now() / 1000);
  const out: Obj = { id: meta.id, object, created: meta.created, model: str(json.model) || cx.callerModel };
  if (typeof json.system_fingerprint === 'string') out.system_fingerprint = json.system_fingerprint;
  if (typeof json.service_tier === 'string' && SERVICE_TIERS.has(json.service_tier)) out.service_tier = json.service_tier;
  return out;
}

/** A non-stream chat answer as OpenAI's `chat.completion`; an error body is left as it is. */
export function normaliseCompletion(json: Obj, cx: ConvertContext): Obj {
  if (isObj(json.error)) return json;
  const out = head(json, 'chat.completion', cx, {});
  const choices = Array.isArray(json.choices) ? json.choices.filter(isObj) : [];
  out.choices = choices.map((c, i) => ({ index: int(c.index) ?? i, message: message(c.message ?? c.delta, cx), logprobs: logprobs(c.logprobs), finish_reason: finishReason(c.finish_reason) ?? 'stop' }));
  const usage = normaliseUsage(json.usage);
  if (usage) out.usage = usage;
  return out;
}

/** One stream chunk as OpenAI's `chat.completion.chunk`; an in-stream error is left as it is. */
function normaliseChunk(json: Obj, cx: ConvertContext, meta: { id?: string; created?: number }): Obj {
  if (isObj(json.error)) return json;
  const out = head(json, 'chat.completion.chunk', cx, meta);
  const choices = Array.isArray(json.choices) ? json.choices.filter(isObj) : [];
  out.choices = choices.map((c, i) => ({ index: int(c.index) ?? i, delta: delta(c.delta ?? c.message), logprobs: logprobs(c.logprobs), finish_reason: finishReason(c.finish_reason) }));
  const usage = normaliseUsage(json.usage);
  if (usage !== undefined) out.usage = usage;
  return out;
}

/**
 * A normalised chunk for a caller that did not ask for usage: OpenAI sends `usage` only when asked,
 * so an upstream's usage riding a content chunk is left out (the bill has already read it). A
 * usage-only chunk is left to the pass-through writer, which swallows it. Undefined: unchanged.
 */
export function withoutUnaskedUsage(json: Obj, cx: ConvertContext): Obj | undefined {
  if (cx.clientWantsUsage || !('usage' in json) || !Array.isArray(json.choices) || json.choices.length === 0) return undefined;
  const { usage: _usage, ...rest } = json;
  return rest;
}

/**
 * A stream's events rebuilt chunk by chunk, before they are read for the bill and written to the
 * caller: `[DONE]` passes, a frame that is not a JSON object is dropped (no valid chunk can be made
 * of it), and every chunk gets the stream's one id and timestamp. Constant memory per stream.
 */
export function normaliseChunks(cx: ConvertContext): (ev: UpstreamEvent) => UpstreamEvent | undefined {
  const meta: { id?: string; created?: number } = {};
  return (ev) => {
    const data = ev.data.trim();
    if (data === '[DONE]') return { event: undefined, data };
    const json = parseObject(data);
    if (!json) return undefined;
    return { event: undefined, data: JSON.stringify(normaliseChunk(json, cx, meta)) };
  };
}
