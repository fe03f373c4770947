import { createHash } from 'node:crypto';
import type { UpstreamGuard } from '../../../net/upstream-guard.js';
import { upstreamSideCall } from '../../upstream.js';
import { SigningError } from '../types.js';

interface CachedToken {
  token: string;
  /** Epoch ms after which a new token is fetched. */
  renewAt: number;
}

/** `client_id|client_secret` (the console's API Key and Secret Key), or undefined for another shape. */
export function baiduKeyParts(key: string): { clientId: string; clientSecret: string } | undefined {
  const parts = key.trim().split('|').map((p) => p.trim());
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { clientId: parts[0], clientSecret: parts[1] };
}

function refused(message: string, disablesChannel: boolean, retryable: boolean): SigningError {
  return new SigningError({ status: 401, type: 'baidu_error', code: 'access_token_refused', param: null, message, retryable, disablesChannel });
}

/** `POST {base}/oauth/2.0/token?grant_type=client_credentials…`; a refusal is a channel error with Baidu's words. */
export async function fetchBaiduToken(base: string, key: string, guard?: UpstreamGuard): Promise<{ token: string; expiresIn: number }> {
  const parts = baiduKeyParts(key);
  if (!parts) throw refused('channel key is not a Baidu key: expected APIKey|SecretKey', true, true);
  const q = new URLSearchParams({ grant_type: 'client_credentials', client_id: parts.clientId, client_secret: parts.clientSecret });
  let res: { status: number; text: string };
  try {
    // The token host is the channel's base URL (the administrator's upstream), reached like the relay reaches it.
    res = await upstreamSideCall(`${base}/oauth/2.0/token?${q.toString()}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, timeoutMs: 20_000, guard });
  } catch (err) {
    const failed = new SigningError({ status: 500, type: 'baidu_error', code: 'access_token_failed', param: null, message: `Baidu access token request failed: ${(err as Error).message}`, retryable: true, disablesChannel: false });
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
  if (res.status !== 200 || typeof j.access_token !== 'string' || !j.access_token) {
    const what = [j.error, j.error_description].filter((v) => typeof v === 'string' && v).join(': ') || `HTTP ${res.status}`;
    // A refused client id or secret is a dead key; a 5xx may pass.
    const dead = res.status < 500;
    throw refused(`Baidu access token refused: ${what}`, dead, true);
  }
  return { token: j.access_token, expiresIn: typeof j.expires_in === 'number' ? j.expires_in : 2592000 };
}

/**
 * Access tokens per channel (and key: an edited key gets its own), used until shortly before they
 * expire; concurrent requests of a channel share one fetch in flight. They stay in this process on
 * purpose, like Vertex's: each node may hold its own token, nothing else needs to see it.
 */
export class BaiduTokens {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(private readonly fetchToken: (base: string, key: string, guard?: UpstreamGuard) => Promise<{ token: string; expiresIn: number }> = fetchBaiduToken) {}

  private id(channelId: number, key: string): string {
    return `${channelId}:${createHash('sha256').update(key).digest('hex')}`;
  }

  /** `guard`: the channel target's, when no root placed it (the token host is the channel's base URL). */
  async token(channelId: number, base: string, key: string, guard?: UpstreamGuard): Promise<string> {
    const id = this.id(channelId, key);
    const hit = this.tokens.get(id);
    if (hit && hit.renewAt > Date.now()) return hit.token;
    const pending = this.inflight.get(id);
    if (pending) return pending;
    const p = (async () => {
      const { token, expiresIn } = await this.fetchToken(base, key, guard);
      // Renewed an hour before it ends (or half-way through a short-lived one).
      const margin = Math.min(3600, expiresIn / 2);
      this.tokens.set(id, { token, renewAt: Date.now() + (expiresIn - margin) * 1000 });
      return token;
    })();
    this.inflight.set(id, p);
    try {
      return await p;
    } finally {
      this.inflight.delete(id);
    }
  }

  /** The upstream said the token is invalid or expired: the next request fetches a new one. */
  drop(channelId: number, key: string): void {
    this.tokens.delete(this.id(channelId, key));
  }
}
