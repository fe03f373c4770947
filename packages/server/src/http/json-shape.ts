import { relayLangFromHeader, serverMessage } from '@modelgate/shared';

/**
 * JSON nesting and array limits, checked on the raw bytes before `JSON.parse` (issue 22 item 5):
 * one linear pass that jumps over string contents with a native search, so a body of base64
 * images costs about what finding its quotes costs. Deep nesting would otherwise reach recursive
 * code (format converters, `JSON.stringify`, schema checks) and end as a stack overflow; huge
 * arrays multiply per-item work (ids to delete, models to save).
 */
export interface JsonShapeLimits {
  /** Objects and arrays inside one another. */
  maxDepth: number;
  /** Elements of any one array. */
  maxArrayItems: number;
}

/** The management API: what the console sends is a few levels deep and at most a few thousand items long. */
export const API_JSON_LIMITS: JsonShapeLimits = { maxDepth: 64, maxArrayItems: 10_000 };

/**
 * The relay and task routes: generous (tool schemas nest, embedding inputs are token-id arrays of
 * thousands, rerank sends many documents); the body limit bounds the rest.
 */
export const RELAY_JSON_LIMITS: JsonShapeLimits = { maxDepth: 128, maxArrayItems: 200_000 };

export type JsonShapeProblem = { kind: 'depth' | 'array'; limit: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the quote that closes the string opened before `from`, or -1 (an unterminated string). */
function closingQuote(buf: Uint8Array, from: number): number {
  let at = from;
  for (;;) {
    const q = buf.indexOf(QUOTE, at);
    if (q < 0) return -1;
    let slashes = 0;
    for (let j = q - 1; j >= from && buf[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return q;
    at = q + 1;
  }
}

/**
 * The first limit `text` breaks, or null. Malformed JSON is not judged here (the parser that runs
 * next says what is wrong with it); only its brackets outside strings are counted.
 */
export function jsonShapeProblem(text: Uint8Array, limits: JsonShapeLimits): JsonShapeProblem | null {
  const { maxDepth, maxArrayItems } = limits;
  const commas = new Int32Array(maxDepth + 1);
  const isArray = new Uint8Array(maxDepth + 1);
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i];
    if (c === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end < 0) return null;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (depth === maxDepth) return { kind: 'depth', limit: maxDepth };
      depth++;
      isArray[depth] = c === 0x5b ? 1 : 0;
      commas[depth] = 0;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth > 0) depth--;
    } else if (c === 0x2c && isArray[depth] === 1 && depth > 0) {
      // n commas separate n + 1 elements.
      if (++commas[depth]! >= maxArrayItems) return { kind: 'array', limit: maxArrayItems };
    }
  }
  return null;
}

/** The localised message of a problem, for the routes that word their own errors (task relays). */
export function jsonShapeMessage(req: { headers: Record<string, unknown> }, problem: JsonShapeProblem): string {
  const lang = relayLangFromHeader(req.headers['accept-language'] as string | undefined);
  return `${serverMessage(problem.kind === 'depth' ? 'JSON_TOO_DEEP' : 'JSON_ARRAY_TOO_LONG', lang)}: ${problem.limit}`;
}
