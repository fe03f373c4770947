import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../test-support/api-client.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { nowSec } from './reply.js';
import { LAST_SEEN_EVERY_SEC } from './session-store.js';

/** A second "browser" that presents a cookie captured earlier (what an attacker who copied it does). */
function replay(url: string, cookie: string, userId: number): ApiClient {
  const c = new ApiClient(url);
  c.cookie = cookie;
  c.userId = userId;
  return c;
}

const sign = (secret: string, id: string) => `${id}.${createHmac('sha256', secret).update(id).digest('base64url')}`;

describe.each(testDbKinds())('server-side sessions on %s', (kind) => {
  let srv: TestServer;

  beforeAll(async () => {
    // The https test comes through a proxy on loopback: X-Forwarded-Proto counts only from a trusted one.
    srv = await startTestServer({ kind, env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
  });
  afterAll(() => srv?.close());

  const sessionsOf = (userId: number) => srv.ctx.db.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();

  it('sets an HttpOnly, SameSite=Lax, 30-day cookie, Secure behind https, and stores only a hash of the id', async () => {
    const u = await newUser(srv.url, 'cookie1');
    const r = await fetch(`${srv.url}/api/user/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': `agent/${'x'.repeat(400)}`, 'X-Forwarded-Proto': 'https' },
      body: JSON.stringify({ username: 'cookie1', password: 'password123' }),
    });
    const setCookie = r.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^session=[^;]+;/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Max-Age=2592000/);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/Secure/);

    const id = decodeURIComponent(/^session=([^;]+)/.exec(setCookie)![1]!).split('.')[0]!;
    const rows = await sessionsOf(u.userId!);
    expect(rows).toHaveLength(2);
    const row = rows.find((s) => s.id === createHash('sha256').update(id).digest('hex'))!;
    expect(row).toBeDefined();
    expect(rows.some((s) => s.id.includes(id))).toBe(false);
    expect(Number(row.expires_at) - Number(row.created_at)).toBe(30 * 24 * 3600);
    expect(row.user_agent).toHaveLength(255);
    expect(row.user_agent.startsWith('agent/')).toBe(true);
    expect(row.ip).toBe('127.0.0.1');

    const plain = (await fetch(`${srv.url}/api/user/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'cookie1', password: 'password123' }),
    })).headers.get('set-cookie');
    expect(plain).not.toMatch(/Secure/);
  });

  it('after logout the old cookie is refused with 401 on /api/user/self', async () => {
    const u = await newUser(srv.url, 'leaver1');
    const stolen = u.cookie;
    expect((await replay(srv.url, stolen, u.userId!).get('/api/user/self')).body.success).toBe(true);
    const out = await u.get('/api/user/logout');
    expect(out.body.success).toBe(true);
    expect(out.headers.get('set-cookie')).toMatch(/session=;/);
    expect(u.cookie).toBe('');
    const r = await replay(srv.url, stolen, u.userId!).get('/api/user/self');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ success: false, message: 'Session expired or ended, please log in again' });
    expect(await sessionsOf(u.userId!)).toHaveLength(0);
  });

  it('two logins give two different cookies; ending one leaves the other', async () => {
    await newUser(srv.url, 'twice1');
    const a = new ApiClient(srv.url);
    const b = new ApiClient(srv.url);
    await a.login('twice1', 'password123');
    await b.login('twice1', 'password123');
    expect(a.cookie).not.toBe('');
    expect(a.cookie).not.toBe(b.cookie);
    await a.get('/api/user/logout');
    expect((await b.get('/api/user/self')).body.data.username).toBe('twice1');
  });

  it('signing in again in the same browser ends the session it held before', async () => {
    const u = await newUser(srv.url, 'again1');
    const before = u.cookie;
    await u.login('again1', 'password123');
    expect(u.cookie).not.toBe(before);
    expect((await replay(srv.url, before, u.userId!).get('/api/user/self')).status).toBe(401);
    expect((await u.get('/api/user/self')).body.success).toBe(true);
  });

  it('refuses an expired record and deletes it on sight', async () => {
    const u = await newUser(srv.url, 'expiry1');
    await srv.ctx.db.db.updateTable('sessions').set({ expires_at: nowSec() - 1 }).where('user_id', '=', u.userId!).execute();
    expect((await u.get('/api/user/self')).status).toBe(401);
    expect(await sessionsOf(u.userId!)).toHaveLength(0);
  });

  it('the periodic cleanup deletes expired records and keeps live ones', async () => {
    const live = await newUser(srv.url, 'sweep1');
    const dead = await newUser(srv.url, 'sweep2');
    await srv.ctx.db.db.updateTable('sessions').set({ expires_at: nowSec() - 60 }).where('user_id', '=', dead.userId!).execute();
    expect(await srv.ctx.sessions.deleteExpired()).toBeGreaterThanOrEqual(1);
    expect(await sessionsOf(dead.userId!)).toHaveLength(0);
    expect(await sessionsOf(live.userId!)).toHaveLength(1);
    expect((await live.get('/api/user/self')).body.success).toBe(true);
  });

  it('refuses forged and modified cookies', async () => {
    const u = await newUser(srv.url, 'forge1');
    const [id, mac] = u.cookie.slice('session='.length).split('.') as [string, string];
    const attempts = [
      `session=${id}.AAAA`,
      `session=${id}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `session=${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}.${mac}`,
      `session=${id}`,
      `session=${sign('another-secret', id)}`,
      // Correctly signed, but no such session was ever started: the record decides.
      `session=${sign('test-secret', randomBytes(32).toString('base64url'))}`,
      'session=garbage',
    ];
    for (const cookie of attempts) {
      const r = await replay(srv.url, cookie, u.userId!).get('/api/user/self');
      expect(r.status, cookie).toBe(401);
      expect(r.body.success).toBe(false);
    }
    expect((await u.get('/api/user/self')).body.success).toBe(true);
  });

  it("still answers 401 when New-Api-User names someone other than the session's user", async () => {
    const u = await newUser(srv.url, 'header1');
    expect((await u.call('GET', '/api/user/self', undefined, { 'New-Api-User': String(u.userId! + 1000) })).status).toBe(401);
    expect((await u.call('GET', '/api/user/self', undefined, { 'New-Api-User': '' })).status).toBe(401);
  });

  it('updates last_seen_at at most every few minutes, not on every request', async () => {
    const u = await newUser(srv.url, 'seen1');
    const recent = nowSec() - 10;
    await srv.ctx.db.db.updateTable('sessions').set({ last_seen_at: recent }).where('user_id', '=', u.userId!).execute();
    await u.get('/api/user/self');
    expect(Number((await sessionsOf(u.userId!))[0]!.last_seen_at)).toBe(recent);
    await srv.ctx.db.db.updateTable('sessions').set({ last_seen_at: nowSec() - LAST_SEEN_EVERY_SEC - 1 }).where('user_id', '=', u.userId!).execute();
    await u.get('/api/user/self');
    expect(Number((await sessionsOf(u.userId!))[0]!.last_seen_at)).toBeGreaterThanOrEqual(nowSec() - 5);
  });

  it('a stale cookie beside a valid access token lets the token through', async () => {
    const u = await newUser(srv.url, 'script1');
    const token = (await u.get('/api/user/token')).body.data as string;
    const stale = u.cookie;
    await u.get('/api/user/logout');
    const script = replay(srv.url, stale, u.userId!);
    script.accessToken = token;
    expect((await script.get('/api/user/self')).body.data.username).toBe('script1');
  });

  it('a session ended on one node is refused by another node on the same database', async () => {
    const root = await rootClient(srv.url);
    const { openDb } = await import('../db/client.js');
    const { createContext } = await import('../create-context.js');
    const { buildApp } = await import('../app.js');
    const db2 = await openDb(srv.ctx.config);
    const ctx2 = createContext(srv.ctx.config, db2);
    await ctx2.options.reload();
    const app2 = await buildApp(ctx2);
    try {
      const ask = (c: ApiClient) => app2.inject({ method: 'GET', url: '/api/user/self', headers: { cookie: c.cookie, 'new-api-user': String(c.userId) } });
      const copy = replay(srv.url, root.cookie, 1);
      expect((await ask(copy)).json().success).toBe(true);
      await root.get('/api/user/logout');
      expect((await ask(copy)).statusCode).toBe(401);
    } finally {
      await app2.close();
      await db2.destroy();
    }
  });
});
