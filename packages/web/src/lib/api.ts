import type { ApiEnvelope } from '@modelgate/shared';
import type { ApiBody, ApiData, ApiParams, ApiQuery, ApiResponseOf, ApiRouteKey } from '@modelgate/shared/api';
import i18n from '../i18n';
import { showError } from './feedback';
import { noteRateLimited } from './rate-limit-state';
import { randomAlphanumeric } from './random';
import { getStoredUser, setStoredUser } from './storage';


export class ApiError extends Error {
  /** HTTP status, or 0 when the server could not be reached. 200 means `success:false`. */
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  params?: Record<string, QueryValue>;
  body?: unknown;
  /** Do not toast failures; the caller shows its own message. */
  silent?: boolean;
}

/** Indirection so tests can observe the 401 redirect and a reload (jsdom cannot navigate). */
export const browser = {
  redirect(url: string): void {
    window.location.href = url;
  },
  reload(): void {
    window.location.reload();
  },
};

export function buildUrl(path: string, params?: Record<string, QueryValue>): string {
  if (!params) return path;
  const search = new URLSearchParams();
  // The reference always sends every filter, empty ones as `key=`; only undefined/null are dropped.
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    search.append(key, String(value));
  }
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

function httpErrorText(status: number, detail: string, retryAfterSec: number): string {
  switch (status) {
    case 429:
      return retryAfterSec > 0 ? i18n.t('common:error.tooManyRequestsRetry', { seconds: retryAfterSec }) : i18n.t('common:error.tooManyRequests');
    case 500:
      return i18n.t('common:error.internal');
    case 405:
      return i18n.t('common:error.demoSite');
    default:
      return i18n.t('common:error.withMessage', { message: detail });
  }
}

async function readDetail(response: Response): Promise<string> {
  try {
    const text = await response.text();
    try {
      const parsed = JSON.parse(text) as { message?: unknown; error?: { message?: unknown } };
      if (typeof parsed.message === 'string' && parsed.message) return parsed.message;
      if (typeof parsed.error?.message === 'string') return parsed.error.message;
    } catch {
      // not JSON: fall through to the raw text
    }
    return text.trim().slice(0, 200) || response.statusText || `HTTP ${response.status}`;
  } catch {
    return response.statusText || `HTTP ${response.status}`;
  }
}

function fail(error: ApiError, silent: boolean | undefined): never {
  if (!silent) showError(error.message);
  throw error;
}

/**
 * Writes in flight, by method, URL and body. A double click (or a form validated twice before its
 * button shows "loading") sends the same write twice; the second caller shares the first request
 * instead, so two tokens or two code batches are never created by one gesture.
 */
const writesInFlight = new Map<string, Promise<ApiEnvelope>>();

/** Sends a request and returns the whole envelope; throws ApiError on transport or HTTP errors. */
function requestEnvelope(method: string, path: string, options: RequestOptions = {}): Promise<ApiEnvelope> {
  if (method === 'GET' || method === 'HEAD') return sendRequest(method, path, options);
  const signature = `${method} ${buildUrl(path, options.params)} ${options.body === undefined ? '' : JSON.stringify(options.body)}`;
  const running = writesInFlight.get(signature);
  if (running) return running;
  // One key per submission: the server answers a retried create with the first result (http/idempotency.ts).
  const sent = sendRequest(method, path, options, `mg-${randomAlphanumeric(24)}`).finally(() => writesInFlight.delete(signature));
  writesInFlight.set(signature, sent);
  return sent;
}

/**
 * The headers every call made with the console's session carries (the `/api` calls and the
 * playground's `/pg` relay calls alike).
 */
export function sessionHeaders(): Record<string, string> {
  return {
    // The server rejects a session whose user id differs from this header; -1 before login.
    'New-Api-User': String(getStoredUser()?.id ?? -1),
    // Server messages come back in the language the user picked, not the browser's.
    'Accept-Language': i18n.language?.startsWith('en') ? 'en' : 'zh',
  };
}

/** A JSON POST to the playground's `/pg` relay routes with the console's session (their answers are not the `/api` envelope). */
export function postPg(path: `/pg/${string}`, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...sessionHeaders() },
    body: JSON.stringify(body),
    credentials: 'same-origin',
    signal,
  });
}

async function sendRequest(method: string, path: string, options: RequestOptions, idempotencyKey?: string): Promise<ApiEnvelope> {
  const headers: Record<string, string> = { ...sessionHeaders(), 'Cache-Control': 'no-store' };
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }

  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.params), {
      method,
      headers,
      body,
      credentials: 'same-origin',
    });
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    fail(new ApiError(i18n.t('common:error.withMessage', { message: detail }), 0), options.silent);
  }

  if (response.status === 401) {
    // The reference keeps localStorage.user here, which leaves the header showing a signed-in
    // user on the login page and lets the route guard bounce back into another 401. Forget it.
    setStoredUser(null);
    browser.redirect('/login?expired=true');
    throw new ApiError(i18n.t('common:error.sessionExpired'), 401);
  }
  if (!response.ok) {
    // ModelGate sends delta-seconds; anything else (an HTTP date) reads as unknown.
    const retryAfterSec = response.status === 429 ? Number(response.headers.get('Retry-After')) || 0 : 0;
    if (response.status === 429) noteRateLimited(retryAfterSec || 60);
    fail(new ApiError(httpErrorText(response.status, await readDetail(response), retryAfterSec), response.status), options.silent);
  }

  let envelope: ApiEnvelope;
  try {
    envelope = (await response.json()) as ApiEnvelope;
  } catch {
    fail(new ApiError(i18n.t('common:error.badResponse'), response.status), options.silent);
  }
  if (!envelope || typeof envelope !== 'object') {
    fail(new ApiError(i18n.t('common:error.badResponse'), response.status), options.silent);
  }
  return envelope;
}

/**
 * A route's call options, typed by its contract in `@modelgate/shared/api`: path parameters, query
 * and body are what the server's schemas accept.
 */
export type CallOptions<K extends ApiRouteKey> = {
  params?: ApiParams<K>;
  query?: ApiQuery<K>;
  body?: ApiBody<K>;
  /** Do not toast failures; the caller shows its own message. */
  silent?: boolean;
  /** Append `/` like the reference console does on some paths (`DELETE /api/token/7/`). */
  slash?: boolean;
};

/** `"METHOD /api/x/:id"` with its parameters → method and path. */
export function routePath(key: ApiRouteKey, params?: Record<string, unknown>, slash = false): { method: string; path: string } {
  const at = key.indexOf(' ');
  const path = key.slice(at + 1).replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params?.[name] ?? '')));
  return { method: key.slice(0, at), path: slash && !path.endsWith('/') ? `${path}/` : path };
}

/**
 * Calls route `key` and returns its whole answer, as the server sends it: for the few routes whose
 * success or failure carries fields next to `data` (a channel test's `time`, the pricing groups).
 */
export async function callEnvelope<K extends ApiRouteKey>(key: K, options: CallOptions<K> = {}): Promise<ApiResponseOf<K>> {
  const { method, path } = routePath(key, options.params as Record<string, unknown> | undefined, options.slash);
  const params = options.query as Record<string, QueryValue> | undefined;
  return (await requestEnvelope(method, path, { params, body: options.body, silent: options.silent })) as ApiResponseOf<K>;
}

/** Calls route `key` and unwraps `data`; `success:false` toasts the server's message and throws. */
export async function call<K extends ApiRouteKey>(key: K, options: CallOptions<K> = {}): Promise<ApiData<K>> {
  const envelope = (await callEnvelope(key, options)) as ApiEnvelope;
  if (!envelope.success) {
    fail(new ApiError(envelope.message || i18n.t('common:error.unknown'), 200), options.silent);
  }
  return envelope.data as ApiData<K>;
}
