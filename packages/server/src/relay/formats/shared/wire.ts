import type { Lang } from '@modelgate/shared';
import { localError, type RelayError } from '../../relay-error.js';
import type { ConvertContext } from '../types.js';

/**
 * The 400 for a request feature the upstream format cannot express: named, never silently dropped.
 * It is a local error (not retried, not held against the channel) in the caller's format.
 */
export function unsupported(lang: Lang, param: string, why: string): RelayError {
  return localError(lang, 400, 'RELAY_FEATURE_UNSUPPORTED', { type: 'invalid_request_error', errorCode: 'unsupported_parameter', detail: `${param}: ${why}`, param });
}

/** How many dropped paths one request notes, and how long each may be. */
export const DROPPED_MAX = 20;
const DROPPED_NAME_MAX = 64;

/**
 * Notes that `field` of the caller's request was left out of the upstream request (docs/providers.md
 * "Conversion policy"): told back as a note instead of a refusal. `_why` states the reason at the
 * call site (the policy table in the docs says it to users).
 */
export function drop(cx: ConvertContext, field: string, _why: string): void {
  const list = cx.dropped;
  if (!list) return;
  // The caller chooses unknown field names, and the note travels in a response header: only
  // printable ASCII other than the list's comma (a CR, LF, comma or non-ASCII character would break
  // the header or the list), so a hostile key can neither fail the reply nor add a header.
  const name = field.slice(0, DROPPED_NAME_MAX).replace(/[^\x21-\x2b\x2d-\x7e]/g, '_');
  if (list.length < DROPPED_MAX && !list.includes(name)) list.push(name);
}

export const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * An embedding as OpenAI's `encoding_format: "base64"` (Float32 little-endian). An upstream's
 * malformed vector (not a list, or non-numbers in it) encodes what it holds instead of throwing.
 */
export function float32Base64(values: unknown): string {
  const list = Array.isArray(values) ? values.map(Number) : [];
  return Buffer.from(new Float32Array(list).buffer).toString('base64');
}

/** `data:<media type>;base64,<data>` → its parts, or undefined when it is not a base64 data URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1]!.toLowerCase(), data: m[2]! } : undefined;
}

/** Text of a string or of the `text` parts / blocks of a content array. */
export function plainText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

/** The `data` of a stream event as a JSON object, or undefined (`[DONE]`, junk, arrays). */
export function parseObject(data: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(data) as unknown;
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Chat fields another upstream cannot serve whose absence would change the answer: audio output
 * (`modalities` beyond text, `audio`) and legacy function calling (`functions`, `function_call`,
 * whose tools would be lost). Refused with a 400 naming the field; other unknown chat fields are
 * hints, left out with a note (docs/providers.md "Conversion policy").
 */
export function refuseMeaningfulChatFields(body: Record<string, unknown>, cx: ConvertContext, target: string): void {
  if (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text')) throw unsupported(cx.lang, 'modalities', `${target} answers with text only`);
  if (body.audio !== undefined && body.audio !== null) throw unsupported(cx.lang, 'audio', `${target} answers with text only`);
  for (const k of ['functions', 'function_call'] as const) {
    if (body[k] !== undefined && body[k] !== null) throw unsupported(cx.lang, k, 'legacy function calling is not converted: use tools');
  }
}
