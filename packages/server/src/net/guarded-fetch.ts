import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request, type Dispatcher } from 'undici';
import type { IpMatcher } from '../http/ip-list.js';
import { addressAllowed, ipLiteral } from './address-policy.js';

export type OutboundRefusal = 'scheme' | 'address' | 'dns' | 'redirects' | 'size' | 'timeout' | 'network';

/** A fetch the guard refused or that failed; `reason` is stable, `message` says what and where. */
export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
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
  /** For the whole fetch, redirects included (default 15 s). */
  timeoutMs?: number;
  /** Redirects followed, each re-checked (default 3). */
  maxRedirects?: number;
  /** Private ranges the operator allows (OutboundAllowedRanges). */
  allow?: IpMatcher;
  /** DNS; tests inject one. Default: the system resolver, every address. */
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

/**
 * The address to connect to for `url`: the host is resolved once, every address it has must be
 * allowed (a name with one private address among public ones is refused), and the connection is
 * then made to that address, so a second lookup cannot answer differently (DNS rebinding).
 */
async function pinnedAddress(url: URL, opts: GuardedFetchOptions): Promise<string> {
  const literal = ipLiteral(url.hostname);
  const addresses = literal ? [literal] : await resolveAll(url.hostname, opts.resolve ?? systemResolver);
  const refused = addresses.find((a) => !addressAllowed(a, opts.allow));
  if (refused !== undefined) throw new OutboundError('address', `${url.hostname} resolves to ${refused}, an address outbound requests may not reach`);
  return addresses[0]!;
}

async function resolveAll(hostname: string, resolve: Resolver): Promise<string[]> {
  let found: Array<{ address: string }>;
  try {
    found = await resolve(hostname);
  } catch (err) {
    throw new OutboundError('dns', `${hostname} could not be resolved (${(err as { code?: string }).code ?? 'error'})`);
  }
  if (!found.length) throw new OutboundError('dns', `${hostname} has no address`);
  return found.map((f) => f.address);
}

function checkedUrl(raw: string): URL {
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
 * prompts, task results, webhooks, OAuth endpoints, logos): http(s) only, every address checked and
 * pinned, redirects followed by hand and re-checked, body size and total time capped.
 */
export async function guardedFetch(rawUrl: string, opts: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxRedirects = opts.maxRedirects ?? 3;
  const signal = AbortSignal.timeout(timeoutMs);
  let url = checkedUrl(rawUrl);
  let method = opts.method ?? 'GET';
  let body = opts.body;
  for (let hop = 0; ; hop++) {
    const address = await pinnedAddress(url, opts);
    // Connect to the checked address; the name stays in Host and in TLS (SNI and certificate check).
    const target = new URL(url);
    target.hostname = address.includes(':') ? `[${address}]` : address;
    const agent = new Agent({ connect: { servername: ipLiteral(url.hostname) ? undefined : url.hostname }, connections: 1 });
    try {
      const res = await request(target, {
        method,
        headers: { ...opts.headers, host: url.host },
        body,
        dispatcher: agent,
        signal,
      }).catch((err: unknown) => {
        if (signal.aborted) throw new OutboundError('timeout', `${url.host} did not answer within ${timeoutMs} ms`);
        throw new OutboundError('network', `${url.host}: ${(err as { code?: string }).code ?? (err as Error).message}`);
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        await res.body.dump().catch(() => undefined);
        if (hop >= maxRedirects) throw new OutboundError('redirects', `more than ${maxRedirects} redirects from ${rawUrl}`);
        url = checkedUrl(new URL(location, url).toString());
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const data = await readCapped(res.body, maxBytes, url).catch((err: unknown) => {
        if (err instanceof OutboundError) throw err;
        if (signal.aborted) throw new OutboundError('timeout', `${url.host} did not finish within ${timeoutMs} ms`);
        throw new OutboundError('network', `${url.host}: ${(err as Error).message}`);
      });
      return { status: res.statusCode, headers: res.headers, body: data, url: url.toString() };
    } finally {
      void agent.close();
    }
  }
}
