import type { WireError } from '../../../../formats/types.js';

/** Anthropic's error types (providers-international §1.2), by the status they come with. */
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};
const KNOWN_TYPES = new Set(Object.values(TYPE_BY_STATUS));

/** The Anthropic error type for an error: its own when it is one of Anthropic's, else by status. */
export function anthropicErrorType(err: Pick<WireError, 'status' | 'type'>): string {
  // A 404 is always Anthropic's not_found_error (an unknown model carries OpenAI's invalid_request_error type).
  if (err.status === 404) return 'not_found_error';
  if (KNOWN_TYPES.has(err.type)) return err.type;
  const byStatus = TYPE_BY_STATUS[err.status];
  if (byStatus) return byStatus;
  return err.status >= 500 ? 'api_error' : 'invalid_request_error';
}

/** `{"type":"error","error":{"type","message"}}`: what Anthropic and its SDKs expect. */
export function anthropicErrorBody(err: WireError): Record<string, unknown> {
  return { type: 'error', error: { type: anthropicErrorType(err), message: err.message } };
}

export function anthropicErrorFrame(err: WireError): string {
  return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(err))}\n\n`;
}

/** The status an Anthropic error type stands for (an in-stream `error` event has no status of its own). */
export function statusOfAnthropicType(type: string): number {
  for (const [status, t] of Object.entries(TYPE_BY_STATUS)) if (t === type) return Number(status);
  return 500;
}

/** Reads an Anthropic error body (any status, or the data of an in-stream `error` event). */
export function parseAnthropicError(status: number, body: unknown): WireError | undefined {
  const json = typeof body === 'string' ? safeParse(body) : body;
  if (!json || typeof json !== 'object') return undefined;
  const e = (json as { error?: unknown }).error;
  if (!e || typeof e !== 'object') return undefined;
  const { type, message } = e as { type?: unknown; message?: unknown };
  if (typeof type !== 'string') return undefined;
  return { status, type, code: type, param: null, message: typeof message === 'string' && message ? message : type };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
