import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

type Who = 'anonymous' | 'user' | 'admin' | 'root';
/** Expected outcome: 'ok' success, 'deny' HTTP 200 success:false, '401' no session. */
type Outcome = 'ok' | 'deny' | '401';

describe('authorisation matrix', () => {
  let srv: TestServer;
  const clients = {} as Record<Who, ApiClient>;
  let otherUserId = 0;
  let adminId = 0;

  beforeAll(async () => {
    srv = await startTestServer();
    clients.anonymous = new ApiClient(srv.url);
    clients.user = await newUser(srv.url, 'user1');
    clients.admin = await newUser(srv.url, 'admin1');
    clients.root = await rootClient(srv.url);
    adminId = clients.admin.userId!;
    await clients.root.post('/api/user/manage', { id: adminId, action: 'promote' });
    // A role change ends the user's sessions; the admin signs in again with the new role.
    await clients.admin.login('admin1', 'password123');
    otherUserId = (await newUser(srv.url, 'other1')).userId!;
  });
  afterAll(() => srv?.close());

  const rows: Array<[string, string, () => unknown, Record<Who, Outcome>]> = [
    ['GET', '/api/status', () => undefined, { anonymous: 'ok', user: 'ok', admin: 'ok', root: 'ok' }],
    ['GET', '/api/user/self', () => undefined, { anonymous: '401', user: 'ok', admin: 'ok', root: 'ok' }],
    ['GET', '/api/token/?p=0&size=10', () => undefined, { anonymous: '401', user: 'ok', admin: 'ok', root: 'ok' }],
    ['GET', '/api/user/?p=1', () => undefined, { anonymous: '401', user: 'deny', admin: 'ok', root: 'ok' }],
    ['GET', '/api/user/search?keyword=', () => undefined, { anonymous: '401', user: 'deny', admin: 'ok', root: 'ok' }],
    ['GET', '/api/user/:other', () => undefined, { anonymous: '401', user: 'deny', admin: 'ok', root: 'ok' }],
    ['GET', '/api/user/1', () => undefined, { anonymous: '401', user: 'deny', admin: 'deny', root: 'ok' }],
    ['POST', '/api/user/manage', () => ({ id: 1, action: 'disable' }), { anonymous: '401', user: 'deny', admin: 'deny', root: 'deny' }],
    ['POST', '/api/user/manage', () => ({ id: otherUserId, action: 'enable' }), { anonymous: '401', user: 'deny', admin: 'ok', root: 'ok' }],
    ['GET', '/api/option/', () => undefined, { anonymous: '401', user: 'deny', admin: 'deny', root: 'ok' }],
    ['PUT', '/api/option/', () => ({ key: 'Notice', value: 'n' }), { anonymous: '401', user: 'deny', admin: 'deny', root: 'ok' }],
  ];

  for (const [method, path, body, expected] of rows) {
    for (const who of Object.keys(expected) as Who[]) {
      it(`${who} → ${method} ${path}${body() ? ` ${JSON.stringify(body())}` : ''} is ${expected[who]}`, async () => {
        const p = path.replace(':other', String(otherUserId));
        const r = await clients[who].call(method, p, body());
        if (expected[who] === '401') {
          expect(r.status).toBe(401);
          expect(r.body.success).toBe(false);
        } else {
          expect(r.status).toBe(200);
          expect(r.body.success).toBe(expected[who] === 'ok');
        }
      });
    }
  }

  it('says "No permission for this operation" without any credentials', async () => {
    const r = await clients.anonymous.get('/api/user/self');
    expect(r.body.message).toMatch(/No permission for this operation/);
    const zh = new ApiClient(srv.url);
    zh.lang = 'zh-CN';
    expect((await zh.get('/api/user/self')).body.message).toMatch(/无权进行此操作/);
  });

  it('answers 401 when New-Api-User does not match the session user', async () => {
    const c = clients.user;
    const r = await c.call('GET', '/api/user/self', undefined, { 'New-Api-User': String(adminId) });
    expect(r.status).toBe(401);
    const missing = await c.call('GET', '/api/user/self', undefined, { 'New-Api-User': '' });
    expect(missing.status).toBe(401);
  });

  it('rejects a forged or tampered session cookie', async () => {
    const forged = new ApiClient(srv.url);
    forged.userId = 1;
    forged.cookie = clients.user.cookie.replace(/\.[^.]*$/, '.AAAA');
    expect((await forged.get('/api/user/self')).status).toBe(401);
  });

  it('a demoted admin loses admin routes on the very next request', async () => {
    const a = await newUser(srv.url, 'temp_admin');
    await clients.root.post('/api/user/manage', { id: a.userId, action: 'promote' });
    await a.login('temp_admin', 'password123');
    expect((await a.get('/api/user/?p=1')).body.success).toBe(true);
    await clients.root.post('/api/user/manage', { id: a.userId, action: 'demote' });
    expect((await a.get('/api/user/?p=1')).body.success).toBe(false);
  });

  it('a logout ends the session', async () => {
    const u = await newUser(srv.url, 'leaver');
    expect((await u.get('/api/user/logout')).body.success).toBe(true);
    expect((await u.get('/api/user/self')).status).toBe(401);
  });
});
