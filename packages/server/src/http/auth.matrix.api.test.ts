import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

type Who = 'anonymous' | 'user' | 'admin' | 'root';

/**
 * The session rules around the guards. Who may call each route is checked for every route and
 * every kind of caller by the generated matrix (access-matrix.api.test.ts), and the objects of
 * other users by idor.api.test.ts.
 */
describe('authorisation: sessions and roles', () => {
  let srv: TestServer;
  const clients = {} as Record<Who, ApiClient>;
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
  });
  afterAll(() => srv?.close());

  it('root cannot disable, demote or delete root either', async () => {
    for (const action of ['disable', 'demote', 'delete']) {
      expect((await clients.root.post('/api/user/manage', { id: 1, action })).body.success, action).toBe(false);
    }
    expect((await clients.root.get('/api/user/self')).body.data).toMatchObject({ id: 1, role: 100, status: 1 });
  });

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
