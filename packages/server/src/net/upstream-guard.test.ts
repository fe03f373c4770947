import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildConnector, Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IpMatcher, parseIpList } from '../http/ip-list.js';
import { setOutboundResolver } from './guarded-fetch.js';
import { UpstreamGuard, UpstreamTargetRefused } from './upstream-guard.js';

/**
 * The connect-time check of channels whose target no root placed: one lookup per connection, every
 * address checked, the connection made to the checked one with the name kept for Host and TLS; a
 * refusal names no address (the operator's hook gets it).
 */
describe('upstream guard', () => {
  let server: Server;
  let port = 0;
  const hosts: string[] = [];
  let connections = 0;
  const answers = new Map<string, string[]>();
  const lookups: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hosts.push(String(req.headers.host));
      res.end('ok');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    setOutboundResolver(async (name) => {
      lookups.push(name);
      const found = answers.get(name);
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    });
  });
  afterAll(async () => {
    setOutboundResolver(undefined);
    await new Promise<void>((r) => server.close(() => r()));
  });
  afterEach(() => {
    hosts.length = 0;
    connections = 0;
    lookups.length = 0;
    answers.clear();
  });

  const guarded = (allow?: string) => {
    const guard = new UpstreamGuard();
    const refused: Array<[string, string]> = [];
    if (allow) {
      const matcher = new IpMatcher(parseIpList(allow).ranges);
      guard.allow = () => matcher;
    }
    guard.onRefused = (host, address) => void refused.push([host, address]);
    return { guard, refused, agent: new Agent({ connect: guard.connector(buildConnector({ timeout: 5_000 })) }) };
  };

  it('refuses a name with a private address among public ones, naming no address, and tells the operator which', async () => {
    answers.set('split.test', ['93.184.216.34', '127.0.0.1']);
    const { guard, refused, agent } = guarded();
    const err = await request(`http://split.test:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamTargetRefused);
    expect(err).toMatchObject({ code: 'ERR_UPSTREAM_TARGET_REFUSED', host: 'split.test', address: '127.0.0.1' });
    expect((err as Error).message).toBe('the channel target is not an address channel requests may reach');
    expect(refused).toEqual([['split.test', '127.0.0.1']]);
    expect(hosts).toEqual([]);
    await agent.close();
    expect(() => guard.assertUrl(`http://[::1]:${port}/`)).toThrow(UpstreamTargetRefused);
    expect(() => guard.assertUrl('http://10.1.2.3/')).toThrow(UpstreamTargetRefused);
    expect(() => guard.assertUrl('https://api.example.com/')).not.toThrow();
  });

  it('connects to the address it checked, with the name in Host, and looks up once per connection (kept-alive requests ask nothing)', async () => {
    answers.set('allowed.test', ['127.0.0.1']);
    const { agent } = guarded('127.0.0.1/32');
    for (let i = 0; i < 6; i++) {
      const res = await request(`http://allowed.test:${port}/`, { dispatcher: agent });
      expect(await res.body.text()).toBe('ok');
    }
    expect(hosts).toEqual(Array.from({ length: 6 }, () => `allowed.test:${port}`));
    expect(lookups).toEqual(Array.from({ length: connections }, () => 'allowed.test'));
    expect(connections).toBeLessThan(6);
    await agent.close();
  });

  it('never asks a second time within one connection: an answer that changes later (rebinding) reaches no one', async () => {
    answers.set('rebind.test', ['127.0.0.2']);
    const { agent, refused } = guarded('127.0.0.2/32');
    // 127.0.0.2 answers nothing here: the connection fails at the checked address, not at another one.
    const first = await request(`http://rebind.test:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect((first as { code?: string }).code).toBe('ECONNREFUSED');
    answers.set('rebind.test', ['127.0.0.1']);
    const second = await request(`http://rebind.test:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(UpstreamTargetRefused);
    expect(refused).toEqual([['rebind.test', '127.0.0.1']]);
    expect(hosts).toEqual([]);
    await agent.close();
  });

  it('answers node’s lookup in both shapes, with the checked address only', async () => {
    answers.set('one.test', ['127.0.0.1']);
    const { guard } = guarded('127.0.0.1/32');
    const single = await new Promise((resolve, reject) => guard.lookup('one.test', {}, (err, address, family) => (err ? reject(err) : resolve([address, family]))));
    expect(single).toEqual(['127.0.0.1', 4]);
    const all = await new Promise((resolve, reject) => guard.lookup('one.test', { all: true }, (err, address) => (err ? reject(err) : resolve(address))));
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }]);
    const { guard: strict } = guarded();
    const err = await new Promise((resolve) => strict.lookup('one.test', {}, (e) => resolve(e)));
    expect(err).toBeInstanceOf(UpstreamTargetRefused);
  });
});
