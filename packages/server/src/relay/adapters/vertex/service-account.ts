import { createHash, createSign } from 'node:crypto';
import type { IpMatcher } from '../../../http/ip-list.js';
import { guardedFetch, OutboundError } from '../../../net/guarded-fetch.js';
import type { UpstreamGuard } from '../../../net/upstream-guard.js';
import { upstreamSideCall } from '../../upstream.js';
import { SigningError } from '../types.js';

/** The parts of a Google service-account JSON key the token exchange needs (providers-international §4.1). */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** A token is renewed this long before Google says it expires. */
const REFRESH_MARGIN_S = 300;

function fail(status: number, code: string, message: string, disablesChannel: boolean): SigningError {
  return new SigningError({ status, type: 'upstream_error', code, param: null, message, retryable: false, disablesChannel });
}

export function parseServiceAccount(key: string): ServiceAccount {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(key) as Record<string, unknown>;
  } catch {
    throw fail(500, 'invalid_channel_key', 'the channel key is not a service-account JSON key', true);
  }
  const str = (k: string) => (typeof j[k] === 'string' && j[k] !== '' ? (j[k] as string) : undefined);
  const project = str('project_id');
  const email = str('client_email');
  const pem = str('private_key');
  if (!project || !email || !pem) throw fail(500, 'invalid_channel_key', 'the service-account key lacks project_id, client_email or private_key', true);
  // The token URI is part of the key: a test (or a private endpoint) names its own.
  return { project_id: project, client_email: email, private_key: pem, private_key_id: str('private_key_id'), token_uri: str('token_uri') ?? DEFAULT_TOKEN_URI };
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** The RS256 JWT assertion of the JWT-bearer grant, signed with node:crypto. */
export function signedAssertion(sa: ServiceAccount, nowSec: number): string {
  const header = { alg: 'RS256', typ: 'JWT', ...(sa.private_key_id ? { kid: sa.private_key_id } : {}) };
  const claims = { iss: sa.client_email, scope: SCOPE, aud: sa.token_uri, iat: nowSec, exp: nowSec + 3600 };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  let signature: Buffer;
  try {
    signature = createSign('RSA-SHA256').update(input).sign(sa.private_key);
  } catch (err) {
    throw fail(500, 'invalid_channel_key', `the service-account private key cannot sign: ${(err as Error).message}`, true);
  }
  return `${input}.${b64url(signature)}`;
}

interface CachedToken {
  token: string;
  /** Epoch ms after which the token is renewed. */
  renewAt: number;
}

/**
 * Access tokens per channel (and key: an edited key gets its own), kept until shortly before they
 * expire; concurrent requests of one channel share a single exchange in flight. Tokens stay in
 * this process on purpose: each node can get its own, nothing else needs to see them.
 */
export class TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(private readonly exchange: (sa: ServiceAccount, endpoint: TokenEndpoint) => Promise<{ token: string; expiresIn: number }>) {}

  async token(channelId: number, key: string, endpoint: TokenEndpoint = { baseUrl: '' }): Promise<string> {
    const id = `${channelId}:${createHash('sha256').update(key).digest('hex')}`;
    const hit = this.tokens.get(id);
    if (hit && hit.renewAt > Date.now()) return hit.token;
    const pending = this.inflight.get(id);
    if (pending) return pending;
    const p = (async () => {
      const sa = parseServiceAccount(key);
      const { token, expiresIn } = await this.exchange(sa, endpoint);
      this.tokens.set(id, { token, renewAt: Date.now() + Math.max(60, expiresIn - REFRESH_MARGIN_S) * 1000 });
      return token;
    })();
    this.inflight.set(id, p);
    try {
      return await p;
    } finally {
      this.inflight.delete(id);
    }
  }
}

/** What decides how a key's `token_uri` is reached. */
export interface TokenEndpoint {
  /** The channel's base URL ('' for Google's hosts). */
  baseUrl: string;
  /** Private ranges the operator allows (OutboundAllowedRanges) for a token_uri reached through the guard. */
  allow?: IpMatcher;
  /** The channel target's connect-time guard, when no root placed it: a token_uri on its base URL host is reached through it too. */
  guard?: UpstreamGuard;
}

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * Whether `token_uri` is the administrator's own choice rather than text pasted with a key: Google's
 * endpoint, or an endpoint on the channel's base URL host (a private Vertex endpoint, a test fake).
 * Any other URL is fetched through the SSRF-guarded client: a key is data, and a pasted JSON must
 * not make this server POST to its own network.
 */
export function tokenUriTrusted(tokenUri: string, baseUrl: string): boolean {
  if (tokenUri === DEFAULT_TOKEN_URI) return true;
  const base = baseUrl ? originOf(baseUrl) : undefined;
  return base !== undefined && base !== 'null' && originOf(tokenUri) === base;
}

async function postTokenForm(sa: ServiceAccount, endpoint: TokenEndpoint, form: string): Promise<{ status: number; text: string }> {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (tokenUriTrusted(sa.token_uri, endpoint.baseUrl)) return upstreamSideCall(sa.token_uri, { method: 'POST', headers, body: form, timeoutMs: 20_000, guard: endpoint.guard });
  const res = await guardedFetch(sa.token_uri, { method: 'POST', headers, body: form, timeoutMs: 20_000, maxBytes: 256 * 1024, allow: endpoint.allow });
  return { status: res.status, text: res.body.toString('utf8') };
}

/** `POST token_uri` with the JWT-bearer grant; a refusal is a channel error carrying Google's words. */
export async function exchangeToken(sa: ServiceAccount, endpoint: TokenEndpoint = { baseUrl: '' }): Promise<{ token: string; expiresIn: number }> {
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signedAssertion(sa, Math.floor(Date.now() / 1000)) });
  let res: { status: number; text: string };
  try {
    res = await postTokenForm(sa, endpoint, form.toString());
  } catch (err) {
    // The guard refused the key's token_uri: the key needs fixing, no other attempt will do better.
    if (err instanceof OutboundError && (err.reason === 'address' || err.reason === 'scheme' || err.reason === 'redirects')) {
      throw new SigningError({ status: 500, type: 'upstream_error', code: 'token_uri_refused', param: null, message: `Vertex AI token exchange refused: the key's token_uri is not fetched: ${err.message}`, retryable: false, disablesChannel: false });
    }
    const failed = new SigningError({ status: 500, type: 'upstream_error', code: 'token_exchange_failed', param: null, message: `Vertex AI token exchange failed: ${(err as Error).message}`, retryable: true, disablesChannel: false });
    // A refused target is said as such by the channel test (the cause is never shown to callers).
    throw Object.assign(failed, { cause: err });
  }
  const text = res.text;
  let j: Record<string, unknown> = {};
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: reported below with the status
  }
  if (res.status !== 200 || typeof j.access_token !== 'string') {
    const what = [j.error, j.error_description].filter((v) => typeof v === 'string' && v).join(': ') || `HTTP ${res.status}`;
    // 400 invalid_grant / 401 unauthorized_client: the key itself is refused, so the channel is dead; a 5xx may pass.
    const dead = res.status === 400 || res.status === 401 || res.status === 403;
    throw new SigningError({ status: 500, type: 'upstream_error', code: typeof j.error === 'string' ? j.error : 'token_exchange_failed', param: null, message: `Vertex AI token exchange refused: ${what}`, retryable: res.status >= 500, disablesChannel: dead });
  }
  return { token: j.access_token, expiresIn: typeof j.expires_in === 'number' ? j.expires_in : 3599 };
}
