import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { MemoryRateLimitStore } from './rate-limit.js';

describe('Retry-After of the sliding log', () => {
  it('is the time until the oldest counted hit leaves the window', () => {
    const s = new MemoryRateLimitStore();
    s.hit('k', 2, 1000, 100);
    s.hit('k', 2, 1000, 400);
    expect(s.hit('k', 2, 1000, 500)).toBe(false);
    expect(s.retryAfterMs('k', 2, 1000, 500)).toBe(600);
  });
});

describe('/api limits: per IP for anonymous callers, per user for console sessions', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      env: {
        GLOBAL_API_RATE_LIMIT_ENABLE: 'true',
        GLOBAL_API_RATE_LIMIT: '6',
        GLOBAL_API_USER_RATE_LIMIT_ENABLE: 'true',
        GLOBAL_API_USER_RATE_LIMIT: '30',
        GLOBAL_WEB_RATE_LIMIT_ENABLE: 'true',
        GLOBAL_WEB_RATE_LIMIT: '2',
      },
    });
  });
  afterAll(() => srv?.close());

  it('a signed-in user browses on after the anonymous budget of the same IP is spent', async () => {
    const root = await rootClient(srv.url); // the sign-in is one anonymous call
    const anon = new ApiClient(srv.url);
    const anonStatuses: number[] = [];
    for (let i = 0; i < 6; i++) anonStatuses.push((await anon.get('/api/status')).status);
    expect(anonStatuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(anonStatuses[5]).toBe(429);

    const limited = await anon.get('/api/status');
    expect(limited.status).toBe(429);
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(180);
    expect(limited.body).toMatchObject({ success: false, message: `Too many requests, retry in ${retry} s` });

    // Far more calls than the anonymous budget, as a console does when the operator clicks around.
    for (let i = 0; i < 25; i++) expect((await root.get('/api/user/self')).status).toBe(200);
    // A forged session cookie does not buy the signed-in budget.
    const forged = new ApiClient(srv.url);
    forged.cookie = 'session=forged.value';
    expect((await forged.get('/api/status')).status).toBe(429);

    // The per-user cap still stops a runaway script (30 here; 25 spent above).
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await root.get('/api/user/self')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    root.lang = 'zh';
    const capped = await root.get('/api/user/self');
    expect(capped.status).toBe(429);
    expect(capped.body.message).toBe(`请求过于频繁，请 ${capped.headers.get('retry-after')} 秒后再试`);
  });

  it('past the page-load limit a browser gets an HTML page, not JSON', async () => {
    const load = () => fetch(`${srv.url}/channel`, { headers: { 'Accept-Language': 'en', Accept: 'text/html' } });
    expect((await load()).status).toBe(200);
    expect((await load()).status).toBe(200);
    const res = await load();
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.text()).toMatch(/<p id="limited">Too many requests, retry in \d+ s<\/p>/);
  });
});
