import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { MemoryRateLimitStore } from './rate-limit.js';

describe('sliding-log limiter', () => {
  it('allows max hits per window and frees them as the window slides', () => {
    const s = new MemoryRateLimitStore();
    expect([0, 1, 2].map((t) => s.hit('k', 3, 1000, t))).toEqual([true, true, true]);
    expect(s.hit('k', 3, 1000, 500)).toBe(false);
    expect(s.hit('other', 3, 1000, 500)).toBe(true);
    expect(s.hit('k', 3, 1000, 1000)).toBe(true);
  });

  it('a sweep keeps the logs of keys with longer windows (an IP limit next to a per-token one)', () => {
    const s = new MemoryRateLimitStore();
    expect(s.hit('long', 1, 60_000, 0)).toBe(true);
    // 10 000 hits on short-window keys trigger a sweep long after the short window, within the long one.
    for (let i = 0; i < 10_000; i++) s.hit(`short:${i}`, 1, 10, 1000);
    expect(s.hit('long', 1, 60_000, 1001)).toBe(false);
  });
});

describe('rate limits over HTTP', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      env: { CRITICAL_RATE_LIMIT_ENABLE: 'true', CRITICAL_RATE_LIMIT: '3', GLOBAL_API_RATE_LIMIT_ENABLE: 'true', GLOBAL_API_RATE_LIMIT: '8' },
    });
  });
  afterAll(() => srv?.close());

  it('answers 429 on the 4th login attempt and on the 9th /api request', async () => {
    const c = new ApiClient(srv.url);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await c.post('/api/user/login', { username: 'root', password: 'bad-password' })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const r = await c.get('/api/status');
    expect(r.status).toBe(200);
    const more: number[] = [];
    for (let i = 0; i < 4; i++) more.push((await c.get('/api/status')).status);
    expect(more).toContain(429);
    expect((await c.get('/api/status')).body.message).toMatch(/Too many requests/);
  });
});
