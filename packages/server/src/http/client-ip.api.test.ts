import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { IpMatcher, parseIpList } from './ip-list.js';

describe('IP lists', () => {
  it('parses addresses and ranges of both families, split on newlines, commas and spaces', () => {
    const { ranges, invalid, entries } = parseIpList('10.1.2.3\n192.168.0.0/16, 2001:db8::/32  ::1\n\n');
    expect(invalid).toEqual([]);
    expect(entries).toEqual(['10.1.2.3', '192.168.0.0/16', '2001:db8::/32', '::1']);
    const m = new IpMatcher(ranges);
    expect(['10.1.2.3', '192.168.77.1', '2001:db8:1::9', '::1', '::ffff:10.1.2.3', '::ffff:192.168.0.1'].map((ip) => m.has(ip))).toEqual([true, true, true, true, true, true]);
    expect(['10.1.2.4', '192.169.0.1', '2001:db9::1', '::2', 'not-an-ip', ''].map((ip) => m.has(ip))).toEqual([false, false, false, false, false, false]);
  });

  it('reports every entry that is neither an address nor a range', () => {
    expect(parseIpList('1.2.3.4, 1.2.3.4.5, 10.0.0.0/33, ::/129, fe80::1%eth0, 10.0.0.0/x, 1.2.3.4/08x, host').invalid).toEqual([
      '1.2.3.4.5',
      '10.0.0.0/33',
      '::/129',
      'fe80::1%eth0',
      '10.0.0.0/x',
      '1.2.3.4/08x',
      'host',
    ]);
  });
});

/** Sends a wrong root password as coming from `xff`; returns the HTTP status. */
async function badLogin(c: ApiClient, xff: string): Promise<number> {
  return (await c.call('POST', '/api/user/login', { username: 'root', password: 'wrong-password' }, { 'X-Forwarded-For': xff })).status;
}

describe('client IP without TRUSTED_PROXIES: X-Forwarded-For is ignored', () => {
  let srv: TestServer;
  let global: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { CRITICAL_RATE_LIMIT_ENABLE: 'true', CRITICAL_RATE_LIMIT: '3' } });
    global = await startTestServer({ env: { GLOBAL_API_RATE_LIMIT_ENABLE: 'true', GLOBAL_API_RATE_LIMIT: '5' } });
  });
  afterAll(async () => {
    await srv?.close();
    await global?.close();
  });

  it('throttles login brute force however the header rotates', async () => {
    const c = new ApiClient(srv.url);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(await badLogin(c, `10.9.${i}.${i + 1}`));
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
  });

  it('applies the global /api limit however the header rotates', async () => {
    const c = new ApiClient(global.url);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await c.call('GET', '/api/status', undefined, { 'X-Forwarded-For': `172.16.0.${i + 1}` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });
});

describe('client IP behind a trusted proxy', () => {
  let srv: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1,::1', CRITICAL_RATE_LIMIT_ENABLE: 'true', CRITICAL_RATE_LIMIT: '3' } });
    // A proxy list that does not contain this test's peer (127.0.0.1): the header is not believed.
    other = await startTestServer({ env: { TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8::/32', CRITICAL_RATE_LIMIT_ENABLE: 'true', CRITICAL_RATE_LIMIT: '3' } });
  });
  afterAll(async () => {
    await srv?.close();
    await other?.close();
  });

  it('counts each forwarded client on its own', async () => {
    const c = new ApiClient(srv.url);
    const first: number[] = [];
    for (let i = 0; i < 4; i++) first.push(await badLogin(c, '203.0.113.1'));
    expect(first).toEqual([200, 200, 200, 429]);
    expect(await badLogin(c, '203.0.113.2')).toBe(200);
  });

  it('uses the right-most untrusted address, so a client cannot prepend its way out', async () => {
    const c = new ApiClient(srv.url);
    for (let i = 0; i < 3; i++) expect(await badLogin(c, `198.51.100.${i + 1}, 203.0.113.9`)).toBe(200);
    expect(await badLogin(c, '198.51.100.50, 203.0.113.9')).toBe(429);
    // A trusted hop on the right is skipped: the client is still 203.0.113.9.
    expect(await badLogin(c, '203.0.113.9, 127.0.0.1')).toBe(429);
  });

  it('ignores the header when the peer is not on the list', async () => {
    const c = new ApiClient(other.url);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await badLogin(c, `203.0.113.${i + 1}`));
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
