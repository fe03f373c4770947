import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpMatcher, parseIpList } from '../http/ip-list.js';
import { guardedFetch, OutboundError, redirectTarget, setOutboundResolver, type GuardedFetchOptions, type Resolver } from './guarded-fetch.js';

const allow = (list: string) => new IpMatcher(parseIpList(list).ranges);

async function serve(host: string, handler: (req: IncomingMessage, res: ServerResponse) => void, port = 0): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function refusal(url: string, opts: GuardedFetchOptions = {}): Promise<string> {
  try {
    await guardedFetch(url, opts);
  } catch (err) {
    if (err instanceof OutboundError) return err.reason;
    throw err;
  }
  return 'fetched';
}

describe('guarded outbound fetch', () => {
  let a: { server: Server; port: number };
  let b: { server: Server; port: number };
  const seenHosts: string[] = [];
  const seenAuth: Array<string | undefined> = [];

  beforeAll(async () => {
    // Two servers on one port of two loopback addresses: which one answers shows where a request went.
    a = await serve('127.0.0.2', (req, res) => {
      seenHosts.push(String(req.headers.host));
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/big') return res.end(Buffer.alloc(2000, 97));
      if (url.pathname === '/announce') {
        res.writeHead(200, { 'content-length': '5000' });
        return res.write('x'); // and never the rest
      }
      if (url.pathname === '/auth-echo') {
        seenAuth.push(req.headers.authorization);
        return res.end('echo');
      }
      if (url.pathname === '/to-two') {
        res.writeHead(302, { location: `http://two.test:${a.port}/auth-echo` });
        return res.end();
      }
      if (url.pathname === '/to-self') {
        res.writeHead(302, { location: '/auth-echo' });
        return res.end();
      }
      if (url.pathname === '/hang') return; // never answers
      if (url.pathname.startsWith('/hop/')) {
        const n = Number(url.pathname.slice(5));
        res.writeHead(n > 0 ? 302 : 200, n > 0 ? { location: `/hop/${n - 1}` } : {});
        return res.end(n > 0 ? '' : `landed ${req.method}`);
      }
      if (url.pathname === '/to-b') {
        res.writeHead(302, { location: `http://127.0.0.1:${a.port}/` });
        return res.end();
      }
      if (url.pathname === '/see-other') {
        res.writeHead(303, { location: '/hop/0' });
        return res.end();
      }
      res.end('A');
    });
    b = await serve('127.0.0.1', (_req, res) => res.end('B'), a.port);
  });
  afterAll(() => {
    a.server.closeAllConnections();
    a.server.close();
    b.server.close();
  });

  it('refuses every address form that reaches this host, a private network or a metadata service', async () => {
    const forms = [
      'http://127.0.0.1/',
      'http://localhost/',
      'http://2130706433/', // decimal 127.0.0.1
      'http://0177.0.0.1/', // octal
      'http://0x7f.1/', // hex, short form
      'http://127.1/', // short form
      'http://0x7f000001/', // hex, whole
      'http://0/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[64:ff9b::7f00:1]/', // NAT64
      'http://[2002:7f00:1::]/', // 6to4
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fd00:ec2::254]/',
      'http://10.1.2.3/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/', // CGNAT
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://[fe80::1]/',
      'http://[ff02::1]/',
    ];
    for (const url of forms) expect([url, await refusal(url)]).toEqual([url, 'address']);
  });

  it('fetches http and https only, and never URLs with credentials', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x', 'gopher://example.com/', 'data:text/plain,hi', 'javascript:alert(1)', 'not a url', 'http://user:pass@example.com/']) {
      expect([url, await refusal(url)]).toEqual([url, 'scheme']);
    }
  });

  it('reaches a private range the operator allowed, with the name in Host', async () => {
    const resolve: Resolver = async () => [{ address: '127.0.0.2', family: 4 }];
    const res = await guardedFetch(`http://images.internal.test:${a.port}/`, { allow: allow('127.0.0.2/32'), resolve });
    expect([res.status, res.body.toString()]).toEqual([200, 'A']);
    expect(seenHosts.at(-1)).toBe(`images.internal.test:${a.port}`);
  });

  it('connects to the address it checked, whatever a second lookup would answer (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    const res = await guardedFetch(`http://rebind.test:${a.port}/`, { allow: allow('127.0.0.2/32'), resolve: rebinding });
    expect(res.body.toString()).toBe('A');
    expect(calls).toBe(1);
    // A name with one forbidden address among allowed ones is refused outright.
    const mixed: Resolver = async () => [
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect(await refusal(`http://mixed.test:${a.port}/`, { allow: allow('127.0.0.2/32'), resolve: mixed })).toBe('address');
    expect(await refusal('http://no-such-host.invalid/', { resolve: async () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })) })).toBe('dns');
  });

  it('follows redirects by hand, re-checking each target, at most three', async () => {
    const opts = { allow: allow('127.0.0.2/32') };
    expect((await guardedFetch(`http://127.0.0.2:${a.port}/hop/3`, opts)).body.toString()).toBe('landed GET');
    expect(await refusal(`http://127.0.0.2:${a.port}/hop/4`, opts)).toBe('redirects');
    expect(await refusal(`http://127.0.0.2:${a.port}/to-b`, opts)).toBe('address');
    const seeOther = await guardedFetch(`http://127.0.0.2:${a.port}/see-other`, { ...opts, method: 'POST', body: 'x' });
    expect(seeOther.body.toString()).toBe('landed GET');
  });

  it('caps the body size and the total time', async () => {
    const opts = { allow: allow('127.0.0.2/32') };
    expect((await guardedFetch(`http://127.0.0.2:${a.port}/big`, { ...opts, maxBytes: 2000 })).body.length).toBe(2000);
    expect(await refusal(`http://127.0.0.2:${a.port}/big`, { ...opts, maxBytes: 1000 })).toBe('size');
    const started = Date.now();
    expect(await refusal(`http://127.0.0.2:${a.port}/hang`, { ...opts, timeoutMs: 300 })).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses an announced body over the cap without reading it, and caps DNS within the total time', async () => {
    const opts = { allow: allow('127.0.0.2/32') };
    const started = Date.now();
    expect(await refusal(`http://127.0.0.2:${a.port}/announce`, { ...opts, maxBytes: 1000, timeoutMs: 5000 })).toBe('size');
    expect(Date.now() - started).toBeLessThan(2000);
    const hanging: Resolver = () => new Promise(() => undefined);
    expect(await refusal('http://slow-dns.test/', { resolve: hanging, timeoutMs: 200 })).toBe('timeout');
  });

  it('sends credential headers on a same-origin redirect only', async () => {
    const both: Resolver = async () => [{ address: '127.0.0.2', family: 4 }];
    const opts = { allow: allow('127.0.0.2/32'), resolve: both, headers: { authorization: 'Bearer secret' } };
    seenAuth.length = 0;
    await guardedFetch(`http://one.test:${a.port}/to-self`, opts);
    await guardedFetch(`http://one.test:${a.port}/to-two`, opts);
    expect(seenAuth).toEqual(['Bearer secret', undefined]);
  });

  it('never follows a redirect from https down to http', () => {
    const from = new URL('https://images.example/a.png');
    expect(() => redirectTarget(from, 'http://images.example/b.png')).toThrow(expect.objectContaining({ reason: 'redirects', message: expect.stringContaining('from https to http') }));
    expect(redirectTarget(from, '/b.png').toString()).toBe('https://images.example/b.png');
    expect(redirectTarget(new URL('http://images.example/'), 'https://cdn.example/c.png').toString()).toBe('https://cdn.example/c.png');
    expect(() => redirectTarget(from, 'file:///etc/passwd')).toThrow(expect.objectContaining({ reason: 'scheme' }));
  });

  it('uses the process resolver when the caller names none', async () => {
    const asked: string[] = [];
    setOutboundResolver(async (name) => {
      asked.push(name);
      return [{ address: '127.0.0.2', family: 4 }];
    });
    try {
      const res = await guardedFetch(`http://via-process-dns.test:${a.port}/`, { allow: allow('127.0.0.2/32') });
      expect([res.body.toString(), asked]).toEqual(['A', ['via-process-dns.test']]);
    } finally {
      setOutboundResolver(undefined);
    }
  });
});
