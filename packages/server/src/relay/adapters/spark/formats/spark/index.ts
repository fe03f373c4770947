/**
 * iFlytek Spark over WebSocket (reference §3) against OpenAI chat: the request frame
 * `{header:{app_id,uid}, parameter:{chat:{domain,…}}, payload:{message:{text}}}`, the response frames
 * (`header.code`, `header.status` 0/1/2, `payload.choices.text[].content`, `payload.usage.text` on
 * the last one) and the error codes. No transport here: frames in, OpenAI events and bodies out.
 */
import type { Lang } from '@modelgate/shared';
import { isObj, parseObject, plainText, unsupported } from '../../../../formats/shared/wire.js';
import type { UpstreamEvent, WireError } from '../../../../formats/types.js';

/** Where a Spark version is served and the `domain` it answers as. */
export interface SparkRoute {
  path: string;
  domain: string;
}

/** Version → path and domain (reference §3; [one-api] for the 128K / 32K editions). */
const ROUTES: Record<string, SparkRoute> = {
  'v1.1': { path: '/v1.1/chat', domain: 'lite' },
  'v2.1': { path: '/v2.1/chat', domain: 'generalv2' },
  'v3.1': { path: '/v3.1/chat', domain: 'generalv3' },
  'v3.5': { path: '/v3.5/chat', domain: 'generalv3.5' },
  'v4.0': { path: '/v4.0/chat', domain: '4.0Ultra' },
  'pro-128k': { path: '/chat/pro-128k', domain: 'pro-128k' },
  'max-32k': { path: '/chat/max-32k', domain: 'max-32k' },
};

/** The product names iFlytek uses today, lower-cased, and the version each is served by. */
const ALIASES: Record<string, string> = {
  'spark-lite': 'v1.1',
  lite: 'v1.1',
  general: 'v1.1',
  generalv2: 'v2.1',
  'spark-v2.0': 'v2.1',
  'spark-pro': 'v3.1',
  generalv3: 'v3.1',
  'spark-pro-128k': 'pro-128k',
  'pro-128k': 'pro-128k',
  'spark-max': 'v3.5',
  'generalv3.5': 'v3.5',
  'spark-max-32k': 'max-32k',
  'max-32k': 'max-32k',
  'spark-4.0-ultra': 'v4.0',
  '4.0ultra': 'v4.0',
};

/** The version the channel falls back to (the channel form's default for `other`). */
export const SPARK_DEFAULT_VERSION = 'v2.1';

function normaliseVersion(v: string): string {
  const t = v.trim().toLowerCase();
  return /^\d/.test(t) ? `v${t}` : t;
}

/** The version a model names (`SparkDesk-v3.5`, `spark-max`, `4.0Ultra`), or undefined for a bare `SparkDesk`. */
export function sparkModelVersion(model: string): string | undefined {
  const m = model.trim().toLowerCase();
  if (ALIASES[m]) return ALIASES[m];
  const parts = m.split('-');
  // `SparkDesk-v3.5` (reference: the model split on `-` into exactly two parts).
  if (parts.length === 2 && parts[0] === 'sparkdesk' && /^v?\d+(\.\d+)?$/.test(parts[1]!)) return normaliseVersion(parts[1]!);
  return undefined;
}

/** The route of a call: the model's version, else the channel's `other`, else v2.1. */
export function sparkRoute(model: string, other: string): SparkRoute & { version: string } {
  const version = sparkModelVersion(model) ?? (other.trim() ? normaliseVersion(other) : SPARK_DEFAULT_VERSION);
  const known = ROUTES[version];
  if (known) return { ...known, version };
  // A version newer than this table: iFlytek's pattern (reference: `general<ver>`).
  return { path: `/${version}/chat`, domain: `general${version}`, version };
}

/** Domains that take a `system` message as such; older ones get it as a user turn acknowledged by the assistant. */
const SYSTEM_DOMAINS = new Set(['generalv3.5', '4.0Ultra', 'max-32k', 'pro-128k']);

/**
 * An OpenAI chat body (max_tokens already capped by the pipeline) → the Spark request frame.
 * Spark takes text only and no tools: those are refused with a 400 rather than dropped.
 */
export function sparkRequest(body: Record<string, unknown>, o: { appId: string; uid: string; domain: string; lang: Lang }): Record<string, unknown> {
  if (body.tools !== undefined || body.functions !== undefined) throw unsupported(o.lang, 'tools', 'iFlytek Spark on this channel type does not take tools');
  const text: Array<{ role: string; content: string }> = [];
  (Array.isArray(body.messages) ? (body.messages as unknown[]) : []).filter(isObj).forEach((m, i) => {
    if (Array.isArray(m.content) && m.content.some((p) => isObj(p) && p.type !== 'text')) throw unsupported(o.lang, `messages[${i}].content`, 'iFlytek Spark takes text only');
    const content = plainText(m.content);
    const role = m.role === 'developer' ? 'system' : String(m.role);
    if (role === 'system' && !SYSTEM_DOMAINS.has(o.domain)) text.push({ role: 'user', content }, { role: 'assistant', content: 'Okay' });
    else if (role === 'system' || role === 'user' || role === 'assistant') text.push({ role, content });
    else throw unsupported(o.lang, `messages[${i}].role`, `iFlytek Spark takes system, user and assistant messages, not ${role}`);
  });
  const chat: Record<string, unknown> = { domain: o.domain };
  // Spark's range is (0, 1]: a temperature of 0 is left to the model's default rather than refused.
  if (typeof body.temperature === 'number' && body.temperature > 0) chat.temperature = body.temperature;
  const max = typeof body.max_tokens === 'number' ? body.max_tokens : body.max_completion_tokens;
  if (typeof max === 'number') chat.max_tokens = max;
  if (typeof body.top_k === 'number') chat.top_k = body.top_k;
  return { header: { app_id: o.appId, uid: o.uid }, parameter: { chat }, payload: { message: { text } } };
}

/** What a Spark error code stands for: the status the caller sees and retries judge. */
function statusOf(code: number): number {
  // Parameter, schema and content-audit refusals (10013/10014/10019), too many tokens: the request is at fault.
  if ([10003, 10004, 10005, 10013, 10014, 10019, 10160, 10161, 10163, 10907].includes(code)) return 400;
  // A blacklisted app id, missing authorisation for the app: the channel's account is dead.
  if (code === 10015 || code === 10016 || code === 11200) return 403;
  if ([10006, 10007, 11201, 11202, 11203].includes(code)) return 429;
  if (code === 10008 || code === 10110) return 503;
  return 500;
}

/** Codes meaning the channel's app id cannot serve at all (auto-disable applies). */
export const SPARK_DEAD_CODES = new Set(['10015', '10016', '11200']);

/** A frame whose `header.code` is not 0, as a wire error. */
export function sparkError(frame: Record<string, unknown>): WireError | undefined {
  const h = isObj(frame.header) ? frame.header : undefined;
  const code = Number(h?.code ?? 0);
  if (!h || !Number.isFinite(code) || code === 0) return undefined;
  const message = typeof h.message === 'string' && h.message ? h.message : `iFlytek Spark error ${code}`;
  return { status: statusOf(code), type: 'xunfei_error', code: String(code), param: typeof h.sid === 'string' ? h.sid : null, message };
}

/** `header.status` of a frame (2: the last one). */
export function sparkStatus(frame: Record<string, unknown>): number {
  const h = isObj(frame.header) ? frame.header : {};
  return Number(h.status ?? -1);
}

function choicesOf(frame: Record<string, unknown>): Record<string, unknown> {
  const p = isObj(frame.payload) ? frame.payload : {};
  return isObj(p.choices) ? p.choices : {};
}

/** The text a frame carries. */
export function sparkFrameText(frame: Record<string, unknown>): string {
  const t = choicesOf(frame).text;
  return Array.isArray(t) ? t.map((x) => (isObj(x) && typeof x.content === 'string' ? x.content : '')).join('') : '';
}

/** `payload.usage.text` as an OpenAI usage object, when the frame has it. */
function usageOf(frame: Record<string, unknown>): Record<string, number> | undefined {
  const p = isObj(frame.payload) ? frame.payload : {};
  const u = isObj(p.usage) && isObj(p.usage.text) ? p.usage.text : undefined;
  if (!u) return undefined;
  const prompt = Number(u.prompt_tokens ?? 0);
  const completion = Number(u.completion_tokens ?? 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: Number(u.total_tokens ?? prompt + completion) };
}

/**
 * The frames of a whole answer as one frame of the same shape (what a non-stream caller is
 * answered from): the last header, every frame's text joined, the last frame's usage.
 */
export function sparkMerge(frames: Array<Record<string, unknown>>): Record<string, unknown> {
  const last = frames.at(-1) ?? {};
  const p = isObj(last.payload) ? last.payload : {};
  const content = frames.map(sparkFrameText).join('');
  return { header: last.header ?? {}, payload: { ...p, choices: { ...choicesOf(last), text: [{ role: 'assistant', content, index: 0 }] } } };
}

function sidOf(frame: Record<string, unknown>, fallback: string): string {
  const h = isObj(frame.header) ? frame.header : {};
  return typeof h.sid === 'string' && h.sid ? h.sid : fallback;
}

/** A merged frame → an OpenAI chat completion with Spark's usage. */
export function sparkCompletion(frame: Record<string, unknown>, model: string, requestId: string): Record<string, unknown> {
  return {
    id: `chatcmpl-${sidOf(frame, requestId)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: sparkFrameText(frame), refusal: null }, finish_reason: 'stop' }],
    usage: usageOf(frame),
  };
}

/** Frames → OpenAI chat chunk events; the last frame finishes with Spark's usage; an error code becomes an error event. */
export function sparkChunks(model: string, requestId: string) {
  let first = true;
  const created = Math.floor(Date.now() / 1000);
  return (data: string): UpstreamEvent | undefined => {
    const frame = parseObject(data);
    if (!frame) return undefined;
    const err = sparkError(frame);
    if (err) return { event: undefined, data: JSON.stringify({ error: { type: err.type, code: err.code, message: err.message } }) };
    const delta: Record<string, unknown> = { content: sparkFrameText(frame) };
    if (first) delta.role = 'assistant';
    first = false;
    const done = sparkStatus(frame) === 2;
    const chunk: Record<string, unknown> = { id: `chatcmpl-${sidOf(frame, requestId)}`, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: done ? 'stop' : null }] };
    const usage = done ? usageOf(frame) : undefined;
    if (usage) chunk.usage = usage;
    return { event: undefined, data: JSON.stringify(chunk) };
  };
}
