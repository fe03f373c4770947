import type { WireError } from '../../../../formats/types.js';
import { isObj } from '../../../../formats/shared/wire.js';

/** Google's canonical status names by HTTP status (google.rpc.Code; providers-international §2.3). */
const STATUS_BY_CODE: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const KNOWN = new Set([...Object.values(STATUS_BY_CODE), 'FAILED_PRECONDITION', 'OUT_OF_RANGE', 'UNKNOWN', 'DATA_LOSS', 'ALREADY_EXISTS']);

/** The Google status of an error: its own when it already is one (a Gemini upstream's), else by HTTP status. */
export function googleStatus(err: Pick<WireError, 'status' | 'type'>): string {
  if (KNOWN.has(err.type)) return err.type;
  return STATUS_BY_CODE[err.status] ?? (err.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

/** `{"error":{"code","message","status"}}`: what Google's APIs and SDKs expect. */
export function geminiErrorBody(err: WireError): Record<string, unknown> {
  return { error: { code: err.status, message: err.message, status: googleStatus(err) } };
}

/** The HTTP status a Google status stands for (an in-stream error may carry only the name). */
function statusOf(name: string): number | undefined {
  for (const [code, s] of Object.entries(STATUS_BY_CODE)) if (s === name) return Number(code);
  return undefined;
}

/**
 * Reads a Google error (`{error:{code,message,status,details:[{reason}]}}`, a reply body or an
 * in-stream frame). `type` is the Google status (`RESOURCE_EXHAUSTED`), `code` the ErrorInfo
 * reason when there is one (`API_KEY_INVALID`), else the status.
 */
export function parseGeminiError(status: number, body: unknown): WireError | undefined {
  let json = body;
  if (typeof body === 'string') {
    try {
      json = JSON.parse(body) as unknown;
    } catch {
      return undefined;
    }
  }
  // Some proxies answer with the error object inside a one-element array (the JSON-array stream shape).
  if (Array.isArray(json) && json.length === 1) json = json[0];
  if (!isObj(json) || !isObj(json.error)) return undefined;
  const e = json.error;
  const name = typeof e.status === 'string' && e.status ? e.status : undefined;
  if (!name && typeof e.code !== 'number') return undefined;
  const httpStatus = status || (typeof e.code === 'number' ? e.code : undefined) || (name ? statusOf(name) : undefined) || 500;
  const details = Array.isArray(e.details) ? e.details : [];
  const reason = details.map((d) => (isObj(d) && typeof d.reason === 'string' ? d.reason : '')).find(Boolean);
  const type = name ?? googleStatus({ status: httpStatus, type: '' });
  return { status: httpStatus, type, code: reason ?? type, param: null, message: typeof e.message === 'string' && e.message ? e.message : type };
}
