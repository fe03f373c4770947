import { AppError } from '../../http/errors.js';
import { guardedFetch, OutboundError } from '../../net/guarded-fetch.js';
import type { IpMatcher } from '../../http/ip-list.js';

/** How calls to a sign-in provider are made: the SSRF-guarded client, a time cap, the operator's allow list. */
export interface ProviderHttp {
  timeoutMs: number;
  allow: () => IpMatcher;
}

export interface ProviderAnswer {
  status: number;
  json: Record<string, unknown>;
}

/**
 * One call to a provider, answered as JSON. Every failure becomes a message the user can act on:
 * too slow (the cap is OAUTH_TIMEOUT, never a hang), unreachable, or an answer that is not JSON.
 * Provider endpoints are admin-configured URLs, so they go through the guarded client like any
 * other outbound fetch (a private address needs OutboundAllowedRanges).
 */
export async function providerCall(
  http: ProviderHttp,
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<ProviderAnswer> {
  let res;
  try {
    res = await guardedFetch(url, {
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', 'user-agent': 'ModelGate', ...init.headers },
      body: init.body,
      timeoutMs: http.timeoutMs,
      maxBytes: 1024 * 1024,
      allow: http.allow(),
    });
  } catch (err) {
    if (err instanceof OutboundError) {
      if (err.reason === 'timeout') throw new AppError('OAUTH_PROVIDER_TIMEOUT', 200, `${new URL(url).host}, ${http.timeoutMs / 1000} s`);
      throw new AppError('OAUTH_PROVIDER_UNREACHABLE', 200, err.message);
    }
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(res.body.toString('utf8'));
  } catch {
    throw new AppError('OAUTH_PROVIDER_ERROR', 200, `${new URL(url).host} HTTP ${res.status}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new AppError('OAUTH_PROVIDER_ERROR', 200, `${new URL(url).host} HTTP ${res.status}`);
  return { status: res.status, json: json as Record<string, unknown> };
}

/** A token endpoint's refusal (RFC 6749 §5.2, GitHub's 200 + `error`): a rejected code, or a broken configuration. */
export function tokenRefusal(answer: ProviderAnswer): AppError | null {
  const error = typeof answer.json.error === 'string' ? answer.json.error : '';
  if (!error && answer.status >= 200 && answer.status < 300) return null;
  const description = typeof answer.json.error_description === 'string' ? answer.json.error_description : error || `HTTP ${answer.status}`;
  if (error === 'invalid_grant' || error === 'bad_verification_code' || error === 'redirect_uri_mismatch') return new AppError('OAUTH_CODE_REJECTED', 200, description);
  return new AppError('OAUTH_PROVIDER_ERROR', 200, description);
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');
