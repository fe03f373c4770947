import { serverMessage, type Lang, type ServerMessageCode } from '@modelgate/shared';

/**
 * A relay failure, answered as an OpenAI error object `{error:{message,type,param,code}}` with
 * `status`. `local` errors were decided by ModelGate itself (auth, quota, validation): they are
 * never retried and never count against a channel.
 */
export class RelayError extends Error {
  /** Sent as `Retry-After` (seconds) with a 429 the caller may retry later. */
  retryAfterSec?: number;

  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
    readonly local = true,
  ) {
    super(message);
  }

  toBody(suffix = ''): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message + suffix, type: this.type, param: this.param, code: this.code } };
  }
}

/** A local error whose message comes from the shared catalogue (zh default, en on request). */
export function localError(
  lang: Lang,
  status: number,
  code: ServerMessageCode,
  opts: { type?: string; errorCode?: string; detail?: string; param?: string } = {},
): RelayError {
  const base = serverMessage(code, lang);
  const message = opts.detail ? `${base}: ${opts.detail}` : base;
  return new RelayError(status, opts.type ?? 'new_api_error', opts.errorCode ?? code.toLowerCase(), message, opts.param ?? null);
}

/** `sk-abc***xyz`: enough of a key to recognise it in an error, never the whole secret. */
export function maskKey(key: string): string {
  if (key.length <= 8) return '***';
  return `sk-${key.slice(0, 3)}***${key.slice(-3)}`;
}
