import { serverMessage, type Lang, type ServerMessageCode } from '@modelgate/shared';
import { isDbUnavailable } from '../db/db-unavailable.js';

/**
 * A relay failure, answered as an OpenAI error object `{error:{message,type,param,code}}` with
 * `status`. `local` errors were decided by ModelGate itself (auth, quota, validation): they are
 * never retried and never count against a channel.
 */
export class RelayError extends Error {
  /** Sent as `Retry-After` (seconds) with a 429 or 503 the caller may retry later. */
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

/** Seconds a caller refused during a database outage is told to wait (the ledger probes every second). */
const DB_RETRY_AFTER_SEC = 5;

/**
 * `err` as the caller's error: a RelayError as it is, a database outage the relay cannot serve
 * through (an uncached caller, DB_OUTAGE_MODE=refuse) as 503 with Retry-After; undefined for anything else.
 */
export function asRelayError(err: unknown, lang: Lang): RelayError | undefined {
  if (err instanceof RelayError) return err;
  if (!isDbUnavailable(err)) return undefined;
  const e = localError(lang, 503, 'RELAY_DB_UNAVAILABLE', { errorCode: 'database_unavailable' });
  e.retryAfterSec = DB_RETRY_AFTER_SEC;
  return e;
}
