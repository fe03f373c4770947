import type { Lang } from '@modelgate/shared';
import { localError, type RelayError } from '../../relay-error.js';

/**
 * The 400 for a request feature the upstream format cannot express: named, never silently dropped.
 * It is a local error (not retried, not held against the channel) in the caller's format.
 */
export function unsupported(lang: Lang, param: string, why: string): RelayError {
  return localError(lang, 400, 'RELAY_FEATURE_UNSUPPORTED', { type: 'invalid_request_error', errorCode: 'unsupported_parameter', detail: `${param}: ${why}`, param });
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
