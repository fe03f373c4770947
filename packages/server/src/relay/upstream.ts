import { Agent, buildConnector, Pool, ProxyAgent, type Dispatcher } from 'undici';
import type { UpstreamGuard } from '../net/upstream-guard.js';
import type { TransportReply } from './adapters/types.js';
import type { WireError } from './formats/types.js';

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A pool's `connect` option: undici's own connector, or, for a guarded pool, the same connector
 * reached through the guard's checked lookup (undici ignores `connectTimeout` once `connect` is a
 * function, so the timeout goes to the connector itself).
 */
function connectOption(guard: UpstreamGuard | undefined): Pick<Agent.Options, 'connect' | 'connectTimeout'> {
  return guard ? { connect: guard.connector(buildConnector({ timeout: CONNECT_TIMEOUT_MS })) } : { connectTimeout: CONNECT_TIMEOUT_MS };
}

/**
 * One keep-alive connection pool per upstream origin for the whole process. RELAY_TIMEOUT bounds
 * the wait for response headers (0 = none); STREAMING_TIMEOUT bounds the silence between body
 * chunks, which ends a stalled stream. With `guard`, the pool of channels whose target no root
 * placed: each new connection costs one checked lookup, a kept-alive one nothing.
 */
export function createUpstreamAgent(relayTimeoutSec: number, streamingTimeoutSec: number, guard?: UpstreamGuard): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: relayTimeoutSec * 1000,
    bodyTimeout: streamingTimeoutSec * 1000,
    ...connectOption(guard),
  });
}

/**
 * A channel's own proxy (`setting.proxy`, the reference's per-channel proxy): an http(s) proxy
 * that the requests tunnel through (CONNECT for https upstreams), with the relay pool's timeouts.
 * With `guard` (no root placed the channel), the connection to the proxy goes through the guard's
 * checked lookup, as a direct connection to an upstream would; where the proxy then connects is the
 * proxy's network, not this host's. Credentials in the URL (`http://user:pass@host:port`) are sent
 * as Proxy-Authorization.
 */
export function createProxyAgent(proxyUrl: string, relayTimeoutSec: number, streamingTimeoutSec: number, guard?: UpstreamGuard): Dispatcher {
  const proxyConnect = buildConnector({ timeout: CONNECT_TIMEOUT_MS });
  return new ProxyAgent({
    uri: proxyUrl,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: relayTimeoutSec * 1000,
    bodyTimeout: streamingTimeoutSec * 1000,
    connectTimeout: CONNECT_TIMEOUT_MS,
    clientFactory: (origin, opts) => new Pool(origin, { ...opts, connect: guard ? guard.connector(proxyConnect) : proxyConnect }),
  });
}

/**
 * A proxy scheme the relay cannot speak (socks5: accepted when saved, as the reference does): every
 * connection fails with the reason, so the channel's request fails like an unreachable upstream and
 * root's channel test names the cause, instead of the request silently bypassing the proxy.
 */
export function unsupportedProxy(proxyUrl: string): Dispatcher {
  const scheme = proxyUrl.split(':', 1)[0]!.toLowerCase();
  return new Agent({
    connect: (_opts, callback) => callback(new Error(`the channel's ${scheme} proxy is not supported by the relay; use an http:// or https:// proxy`), null),
  });
}

/**
 * Side calls an adapter makes to its channel's own upstream, outside the relayed request (Baidu's
 * access-token endpoint on the channel's host, the Midjourney and Suno task proxies, a Vertex key's
 * token endpoint on the channel's host): where they go is the channel's target, so they go through
 * the target's guard when no root placed it, like the relayed request. They share one keep-alive
 * pool per guard, follow no redirects (as the relay does not) and are capped in time.
 */
const sideAgent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, ...connectOption(undefined) });
const guardedSideAgents = new WeakMap<UpstreamGuard, Agent>();

function sideDispatcher(guard: UpstreamGuard | undefined): Dispatcher {
  if (!guard) return sideAgent;
  let agent = guardedSideAgents.get(guard);
  if (!agent) guardedSideAgents.set(guard, (agent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, ...connectOption(guard) })));
  return agent;
}

export interface UpstreamSideCall {
  method: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The channel target's guard (`ChannelTarget.guard`): set when no root placed the target. */
  guard?: UpstreamGuard;
}

/** One side call; rejects on a transport failure, a refused target or the time cap (the error's name is then TimeoutError). */
export async function upstreamSideCall(url: string, init: UpstreamSideCall): Promise<{ status: number; text: string }> {
  const res = await sendUpstream(url, { method: init.method, headers: init.headers ?? {}, body: init.body, dispatcher: sideDispatcher(init.guard), signal: AbortSignal.timeout(init.timeoutMs) });
  return { status: res.statusCode, text: (await readBody(res.body)).toString('utf8') };
}

/** One HTTP request to an upstream, as `sendUpstream` makes it. */
export interface UpstreamSend {
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: Buffer | string;
  /** The pool: the relay's (`RelayServices.dispatcherFor`) or the side calls'. */
  dispatcher: Dispatcher;
  signal?: AbortSignal;
  /** The most to wait for the reply's headers, ms (0: none); absent: the pool's own (RELAY_TIMEOUT). */
  headersTimeout?: number;
}

/**
 * The process's one raw HTTP request to an upstream: the relay's attempts, channel probes and
 * follow-ups (through relay/upstream-client.ts) and adapters' side calls all end here, so which
 * pool, which guard and which time limits apply is decided in one place. No redirects are followed.
 */
export async function sendUpstream(url: string, init: UpstreamSend): Promise<TransportReply> {
  const { origin, path } = splitUrl(url);
  const res = await init.dispatcher.request({ origin, path, method: init.method, headers: init.headers, body: init.body, signal: init.signal, headersTimeout: init.headersTimeout });
  return { statusCode: res.statusCode, headers: res.headers, body: res.body };
}

/** Upstream URLs already split (a channel sends every request to the same few). */
const splitUrls = new Map<string, { origin: string; path: string }>();

/**
 * The origin and path of an upstream URL, as undici's own `request(url)` would split it (only
 * http and https). Kept per URL: the split costs more than the map lookup, and a relay sends
 * thousands of requests to each of a handful of URLs (the map is cleared if it ever grows large).
 */
export function splitUrl(url: string): { origin: string; path: string } {
  let split = splitUrls.get(url);
  if (!split) {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`upstream URL must be http or https: ${u.protocol}`);
    split = { origin: u.origin, path: `${u.pathname}${u.search}` };
    if (splitUrls.size >= 4096) splitUrls.clear();
    splitUrls.set(url, split);
  }
  return split;
}

/**
 * The retry table (reference §3.3), judged on the status after status_code_mapping. Adapters
 * start from it (Anthropic adds 400, as the reference does).
 */
export function defaultRetryable(status: number): boolean {
  if (status === 429 || status === 307) return true;
  if (status >= 500) return status !== 504 && status !== 524;
  if (status === 400 || status === 408 || (status >= 200 && status < 300)) return false;
  return true;
}

/** `{"429":"500"}`: the status the client sees and retries judge; 200 is never remapped. */
export function mapStatus(status: number, mapping: Record<string, string> | null): number {
  if (!mapping || status === 200) return status;
  const to = mapping[String(status)];
  const n = to === undefined ? NaN : Number.parseInt(to, 10);
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : status;
}

const DISABLE_CODES = new Set(['invalid_api_key', 'account_deactivated', 'billing_not_active']);
const DISABLE_TYPES = new Set(['insufficient_quota', 'insufficient_user_quota', 'authentication_error', 'permission_error', 'forbidden']);

/**
 * Whether an upstream error means the channel's credentials or account are dead (reference §3.6);
 * adapters start from it (Gemini adds 403). Only the status, `error.code` and `error.type` are
 * judged: those are set by the provider. The message is ignored on purpose — upstreams echo
 * request text in messages, and a user must not be able to switch a channel off by sending a
 * crafted prompt.
 */
export function credentialsDead(err: Pick<WireError, 'status' | 'code' | 'type'>): boolean {
  if (err.status === 401) return true;
  if (err.code && DISABLE_CODES.has(err.code)) return true;
  if (DISABLE_TYPES.has(err.type)) return true;
  return false;
}

/** A whole reply body (an undici body or a transport's), read once. */
export async function readBody(body: AsyncIterable<Buffer | Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of body) parts.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  return Buffer.concat(parts);
}
