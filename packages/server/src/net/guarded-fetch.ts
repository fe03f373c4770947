import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request, type Dispatcher } from 'undici';
import type { IpMatcher } from '../http/ip-list.js';
import { addressAllowed, ipLiteral } from './address-policy.js';

export type OutboundRefusal = 'scheme' | 'address' | 'dns' | 'redirects' | 'size' | 'timeout' | 'network';

/**
 * A fetch the guard refused or that failed; `reason` is stable, `message` says what and where. The
 * message reaches callers (an inline image's refusal, a task image's error), so it never names what
 * a host name resolved to: that is `address`, for the log.
 */
export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
    /** The refused address a name resolved to (reason `address`). */
    readonly address?: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface GuardedFetchOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest body accepted (default 10 MB). */
  maxBytes?: number;
  /** For the whole fetch, DNS and redirects included (default 15 s). */
  timeoutMs?: number;
  /** Redirects followed, each re-checked (default 3). */
  maxRedirects?: number;
  /** Private ranges the operator allows (OutboundAllowedRanges). */
  allow?: IpMatcher;
  /** DNS; tests inject one. Default: the process resolver (`setOutboundResolver`). */
  resolve?: Resolver;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
}

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });
let processResolver: Resolver = systemResolver;

/**
 * Replaces the DNS every guarded fetch uses when its caller names none (undefined: the system's
 * again). DNS lies outside this process: tests answer names with it (a rebinding name, a "public"
 * name that lands on a loopback test server) without a DNS server.
 */
export function setOutboundResolver(resolver: Resolver | undefined): void {
  processResolver = resolver ?? systemResolver;
}

/** Headers that carry a credential for one origin: never sent on to another one by a redirect. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

function withSignal<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function resolveAll(hostname: string, resolve: Resolver, signal?: AbortSignal): Promise<string[]> {
  let found: Array<{ address: string }>;
  try {
    found = await withSignal(resolve(hostname), signal);
  } catch (err) {
    if (signal?.aborted) throw new OutboundError('timeout', `${hostname} could not be resolved in time`);
    throw new OutboundError('dns', `${hostname} could not be resolved (${(err as { code?: string }).code ?? 'error'})`);
  }
  if (!found.length) throw new OutboundError('dns', `${hostname} has no address`);
  return found.map((f) => f.address);
}

/**
 * Every address `hostname` has (itself, for an IP literal), resolved once, and the first of them an
 * outbound request may not reach, if any. For the checks that judge a target without fetching it
 * (a channel's base URL) as well as for the fetch below.
 */
export async function resolveChecked(
  hostname: string,
  opts: Pick<GuardedFetchOptions, 'allow' | 'resolve'> & { signal?: AbortSignal } = {},
): Promise<{ addresses: string[]; refused: string | undefined }> {
  const literal = ipLiteral(hostname);
  const addresses = literal ? [literal] : await resolveAll(hostname, opts.resolve ?? processResolver, opts.signal);
  return { addresses, refused: addresses.find((a) => !addressAllowed(a, opts.allow)) };
}

/**
 * The address to connect to for `hostname`: every address the name has must be allowed (a name with
 * one private address among public ones is refused), and the connection is then made to the first,
 * so a second lookup cannot answer differently (DNS rebinding).
 */
async function checkedAddress(hostname: string, opts: Pick<GuardedFetchOptions, 'allow' | 'resolve'> & { signal?: AbortSignal }): Promise<string> {
  const { addresses, refused } = await resolveChecked(hostname, opts);
  if (refused === undefined) return addresses[0]!;
  // An address the URL itself names may be said back; one a name resolved to is the operator's to read.
  const literal = ipLiteral(hostname);
  throw literal
    ? new OutboundError('address', `the URL names ${literal}, an address outbound requests may not reach`, refused)
    : new OutboundError('address', `${hostname} resolves to an address outbound requests may not reach`, refused);
}

/** `raw` as a URL this client fetches: http(s), no credentials. IPv4 spellings (decimal, octal, hex, short) come out dotted. */
export function checkedUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('scheme', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('scheme', `${url.protocol} URLs are not fetched (http and https only)`);
  if (url.username || url.password) throw new OutboundError('scheme', 'URLs with credentials are not fetched');
  return url;
}

/**
 * Where a redirect leads: checked like the first URL, and never from https down to http (what a
 * secure request carries, or the answer it expects, must not cross the network in clear).
 */
export function redirectTarget(from: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new OutboundError('redirects', `${from.host} redirected to an invalid URL`);
  }
  const url = checkedUrl(next.toString());
  if (from.protocol === 'https:' && url.protocol === 'http:') throw new OutboundError('redirects', `${from.host} redirected from https to http (${url.host}), which is refused`);
  return url;
}

/** A transport error's code, else its message with the address connected to replaced by the name it came from. */
function failureText(err: unknown, address: string, hostname: string): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : String((err as Error).message).split(address).join(hostname);
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number, url: URL): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    // Leaving the loop by throwing closes the stream.
    if (size > maxBytes) throw new OutboundError('size', `${url.host} sent more than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The one client for fetches a user or an admin-configured third party can influence (image URLs in
 * prompts, task results, the download worker, OAuth and OIDC endpoints, a key's token endpoint):
 * http(s) only, every address checked and pinned, redirects followed by hand and re-checked (no
 * https → http, no credential headers to another origin), body size and total time capped.
 */
export async function guardedFetch(rawUrl: string, opts: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxRedirects = opts.maxRedirects ?? 3;
  const signal = AbortSignal.timeout(timeoutMs);
  let url = checkedUrl(rawUrl);
  let method = opts.method ?? 'GET';
  let body = opts.body;
  let headers = { ...opts.headers };
  for (let hop = 0; ; hop++) {
    const address = await checkedAddress(url.hostname, { allow: opts.allow, resolve: opts.resolve, signal });
    // Connect to the checked address; the name stays in Host and in TLS (SNI and certificate check).
    const target = new URL(url);
    target.hostname = address.includes(':') ? `[${address}]` : address;
    const agent = new Agent({ connect: { servername: ipLiteral(url.hostname) ? undefined : url.hostname }, connections: 1 });
    try {
      const res = await request(target, { method, headers: { ...headers, host: url.host }, body, dispatcher: agent, signal }).catch((err: unknown) => {
        if (signal.aborted) throw new OutboundError('timeout', `${url.host} did not answer within ${timeoutMs} ms`);
        throw new OutboundError('network', `${url.host}: ${failureText(err, address, url.hostname)}`);
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        await res.body.dump().catch(() => undefined);
        if (hop >= maxRedirects) throw new OutboundError('redirects', `more than ${maxRedirects} redirects from ${rawUrl}`);
        const next = redirectTarget(url, location);
        if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.has(k.toLowerCase())));
        url = next;
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        // Closed unread: a listener, since destroying an undici body emits an abort error.
        res.body.on('error', () => undefined).destroy();
        throw new OutboundError('size', `${url.host} announced ${declared} bytes, more than ${maxBytes}`);
      }
      const data = await readCapped(res.body, maxBytes, url).catch((err: unknown) => {
        if (err instanceof OutboundError) throw err;
        if (signal.aborted) throw new OutboundError('timeout', `${url.host} did not finish within ${timeoutMs} ms`);
        throw new OutboundError('network', `${url.host}: ${failureText(err, address, url.hostname)}`);
      });
      return { status: res.statusCode, headers: res.headers, body: data, url: url.toString() };
    } finally {
      void agent.close();
    }
  }
}
