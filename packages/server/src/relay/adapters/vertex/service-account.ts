import { createHash, createSign } from 'node:crypto';
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

  constructor(private readonly exchange: (sa: ServiceAccount) => Promise<{ token: string; expiresIn: number }>) {}

  async token(channelId: number, key: string): Promise<string> {
    const id = `${channelId}:${createHash('sha256').update(key).digest('hex')}`;
    const hit = this.tokens.get(id);
    if (hit && hit.renewAt > Date.now()) return hit.token;
    const pending = this.inflight.get(id);
    if (pending) return pending;
    const p = (async () => {
      const sa = parseServiceAccount(key);
      const { token, expiresIn } = await this.exchange(sa);
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

/** `POST token_uri` with the JWT-bearer grant; a refusal is a channel error carrying Google's words. */
export async function exchangeToken(sa: ServiceAccount): Promise<{ token: string; expiresIn: number }> {
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signedAssertion(sa, Math.floor(Date.now() / 1000)) });
  let res: Response;
  try {
    res = await fetch(sa.token_uri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, signal: AbortSignal.timeout(20_000) });
  } catch (err) {
    throw new SigningError({ status: 500, type: 'upstream_error', code: 'token_exchange_failed', param: null, message: `Vertex AI token exchange failed: ${(err as Error).message}`, retryable: true, disablesChannel: false });
  }
  const text = await res.text();
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
