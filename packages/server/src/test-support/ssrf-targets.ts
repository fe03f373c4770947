import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAKE_PNG } from '@modelgate/testkit';
import type { Resolver } from '../net/guarded-fetch.js';

/**
 * What the SSRF suite fetches against (net/ssrf.suite.test.ts). Nothing here leaves loopback:
 *
 * - `public` listens on 127.0.0.2, which the suite lets through with OutboundAllowedRanges
 *   127.0.0.2/32: it plays a server on the internet. The name `public.test` resolves to it.
 * - `victim` listens on 127.0.0.1 on the same port: it plays this host's own services. A guarded
 *   fetch must never reach it, so every request it records is a hole in the guard.
 *
 * Paths (a trailing slash is ignored; the download worker's URL gets one):
 * - `/ok/image`, `/ok/json`: a PNG, or a JSON object every JSON entry point accepts;
 * - `/hop/N/<kind>`: N redirects (302), then `/ok/<kind>`;
 * - `/to-private/<kind>`, `/to-metadata/<kind>`, `/to-file/<kind>`: one 307 redirect to the victim,
 *   to the cloud metadata address, to a file: URL;
 * - `/huge/<kind>`: announces 64 MB.
 */
export interface SsrfTargets {
  port: number;
  /** Requests each server received (method, path, Host header). */
  publicSeen: Array<{ method: string; path: string; host: string }>;
  victimSeen: Array<{ method: string; path: string; host: string }>;
  /** The stub DNS: how often each name was asked. */
  lookups: Map<string, number>;
  resolver: Resolver;
  url(host: string, path: string): string;
  close(): Promise<void>;
}

export type SsrfKind = 'image' | 'json';

/** A JSON answer every JSON entry point takes: an OAuth token reply, an OIDC discovery document, a Vertex token. */
const OK_JSON = {
  access_token: 'ya29.ssrf-suite',
  token_type: 'Bearer',
  expires_in: 3600,
  issuer: 'https://public.test',
  authorization_endpoint: 'https://public.test/authorize',
  token_endpoint: 'https://public.test/token',
  userinfo_endpoint: 'https://public.test/userinfo',
  jwks_uri: 'https://public.test/jwks',
};

function ok(res: ServerResponse, kind: string): void {
  if (kind === 'json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(OK_JSON));
  else res.writeHead(200, { 'content-type': 'image/png' }).end(FAKE_PNG);
}

function handler(port: number, seen: SsrfTargets['publicSeen']) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    seen.push({ method: req.method ?? '', path, host: String(req.headers.host) });
    // Drain a POSTed body (worker, token exchange) before answering.
    req.resume();
    const parts = path.split('/').filter(Boolean);
    const kind = parts.at(-1) ?? 'image';
    const redirect = (status: number, location: string) => res.writeHead(status, { location }).end();
    if (parts[0] === 'ok') return ok(res, kind);
    if (parts[0] === 'hop') {
      const n = Number(parts[1]);
      return n > 0 ? redirect(302, `/hop/${n - 1}/${kind}`) : ok(res, kind);
    }
    if (parts[0] === 'to-private') return redirect(307, `http://127.0.0.1:${port}/ok/${kind}`);
    if (parts[0] === 'to-metadata') return redirect(307, 'http://169.254.169.254/latest/meta-data/');
    if (parts[0] === 'to-file') return redirect(307, 'file:///etc/passwd');
    if (parts[0] === 'huge') {
      res.writeHead(200, { 'content-type': kind === 'json' ? 'application/json' : 'image/png', 'content-length': String(64 * 1024 * 1024) });
      // A little of the announced body; the client gives up on the announcement alone.
      res.write(Buffer.alloc(1024));
      return;
    }
    res.writeHead(404).end();
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Starts both servers and a stub DNS with these names: `public.test` (the public server),
 * `rebind.test` (the public server on its first lookup, this host on every later one),
 * `mixed.test` (both at once), `internal.test` (10.0.0.5), `metadata.test` (169.254.169.254),
 * `v6local.test` (fd00::1), `mapped.test` (::ffff:127.0.0.1), `localhost`; any other name is
 * ENOTFOUND.
 */
export async function startSsrfTargets(): Promise<SsrfTargets> {
  const publicSeen: SsrfTargets['publicSeen'] = [];
  const victimSeen: SsrfTargets['victimSeen'] = [];
  const lookups = new Map<string, number>();
  let port = 0;
  const pub = createServer((req, res) => handler(port, publicSeen)(req, res));
  const victim = createServer((req, res) => handler(port, victimSeen)(req, res));
  port = await listen(pub, '127.0.0.2', 0);
  await listen(victim, '127.0.0.1', port);
  const v4 = (address: string) => [{ address, family: 4 }];
  const resolver: Resolver = async (hostname) => {
    const n = (lookups.get(hostname) ?? 0) + 1;
    lookups.set(hostname, n);
    switch (hostname) {
      case 'public.test':
        return v4('127.0.0.2');
      case 'rebind.test':
        return v4(n === 1 ? '127.0.0.2' : '127.0.0.1');
      case 'mixed.test':
        return [...v4('127.0.0.2'), ...v4('127.0.0.1')];
      case 'internal.test':
        return v4('10.0.0.5');
      case 'metadata.test':
        return v4('169.254.169.254');
      case 'v6local.test':
        return [{ address: 'fd00::1', family: 6 }];
      case 'mapped.test':
        return [{ address: '::ffff:127.0.0.1', family: 6 }];
      case 'localhost':
        return [...v4('127.0.0.1'), { address: '::1', family: 6 }];
      default:
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
  };
  return {
    get port() {
      return port;
    },
    publicSeen,
    victimSeen,
    lookups,
    resolver,
    url: (host, path) => `http://${host}:${port}${path}`,
    async close() {
      for (const s of [pub, victim]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    },
  };
}
