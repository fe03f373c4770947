import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

describe.each(testDbKinds())('accounts on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  it('root/123456 logs in with a session cookie and is told the default password is in use', async () => {
    const c = new ApiClient(srv.url);
    const r = await c.login('root', '123456');
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toMatchObject({ id: 1, username: 'root', role: 100, status: 1, group: 'default', default_password: true });
    expect(r.headers.get('set-cookie')).toMatch(/session=.+HttpOnly/i);
    const self = await c.get('/api/user/self');
    expect(self.body.data).toMatchObject({ username: 'root', quota: 100000000, DeletedAt: null });
    expect(self.body.data.password).toBeUndefined();
  });

  it('registers with the §5 rules and logs in by username', async () => {
    const c = new ApiClient(srv.url);
    expect((await c.post('/api/user/register', { username: 'short', password: '1234567' })).body).toMatchObject({ success: false, message: expect.stringContaining('8') });
    expect((await c.post('/api/user/register', { username: 'alice', password: 'password1', password2: 'password2' })).body.message).toMatch(/differ/);
    expect((await c.post('/api/user/register', { username: 'thirteenchars', password: 'password1' })).body.message).toMatch(/12/);
    expect((await c.post('/api/user/register', { username: '', password: 'password1' })).body.success).toBe(false);
    expect((await c.post('/api/user/register', { username: 'alice', password: 'password1', password2: 'password1' })).body.success).toBe(true);
    expect((await c.post('/api/user/register', { username: 'alice', password: 'password1' })).body.message).toMatch(/already exists/);
    expect((await c.login('alice', 'wrongpass')).body).toMatchObject({ success: false, message: expect.stringMatching(/incorrect/) });
    const ok = await c.login('alice', 'password1');
    expect(ok.body.data).toMatchObject({ username: 'alice', role: 1, status: 1, default_password: false });
    expect((await c.post('/api/user/login', { username: '', password: '' })).body.message).toMatch(/enter username and password/);
  });

  it('logs in by email', async () => {
    const c = await newUser(srv.url, 'emailer');
    await srv.ctx.users.update(c.userId!, { email: 'emailer@example.com' });
    const again = new ApiClient(srv.url);
    expect((await again.login('emailer@example.com', 'password123')).body.data.username).toBe('emailer');
  });

  it('links an invitee to the inviter by aff_code and pays the invitation rewards', async () => {
    await root.put('/api/option/', { key: 'QuotaForInviter', value: '1000' });
    await root.put('/api/option/', { key: 'QuotaForInvitee', value: '500' });
    await root.put('/api/option/', { key: 'QuotaForNewUser', value: '200' });
    const inviter = await newUser(srv.url, 'inviter');
    const code = (await inviter.get('/api/user/aff')).body.data as string;
    expect(code).toMatch(/^[0-9a-zA-Z]{4,}$/);
    const invitee = new ApiClient(srv.url);
    expect((await invitee.post('/api/user/register', { username: 'invitee', password: 'password123', aff_code: code })).body.success).toBe(true);
    await invitee.login('invitee', 'password123');
    const me = (await invitee.get('/api/user/self')).body.data;
    expect(me.quota).toBe(700);
    expect(me.inviter_id).toBe(inviter.userId);
    const inv = (await inviter.get('/api/user/self')).body.data;
    expect(inv).toMatchObject({ aff_count: 1, aff_quota: 1000, aff_history_quota: 1000 });
    // Pending earnings move to quota only by transfer, and only from one dollar up.
    expect((await inviter.post('/api/user/aff_transfer', { quota: 1000 })).body.message).toMatch(/minimum/);
    for (const k of ['QuotaForInviter', 'QuotaForInvitee', 'QuotaForNewUser']) await root.put('/api/option/', { key: k, value: '0' });
  });

  it('honours RegisterEnabled and PasswordLoginEnabled', async () => {
    await root.put('/api/option/', { key: 'RegisterEnabled', value: 'false' });
    const c = new ApiClient(srv.url);
    expect((await c.post('/api/user/register', { username: 'closed', password: 'password123' })).body.message).toMatch(/turned off new user registration/);
    await root.put('/api/option/', { key: 'RegisterEnabled', value: 'true' });
    await root.put('/api/option/', { key: 'PasswordLoginEnabled', value: 'false' });
    expect((await c.login('root', '123456')).body.message).toMatch(/turned off password login/);
    await root.put('/api/option/', { key: 'PasswordLoginEnabled', value: 'true' });
  });

  it('requires an email code when email verification is on', async () => {
    await root.put('/api/option/', { key: 'EmailVerificationEnabled', value: 'true' });
    const c = new ApiClient(srv.url);
    expect((await c.post('/api/user/register', { username: 'verif', password: 'password123' })).body.message).toMatch(/verification/);
    await srv.ctx.codes.put('email', 'v@example.com', 'abc123', 60_000);
    expect((await c.post('/api/user/register', { username: 'verif', password: 'password123', email: 'v@example.com', verification_code: 'nope' })).body.message).toMatch(/incorrect or expired/);
    expect((await c.post('/api/user/register', { username: 'verif', password: 'password123', email: 'v@example.com', verification_code: 'abc123' })).body.success).toBe(true);
    await root.put('/api/option/', { key: 'EmailVerificationEnabled', value: 'false' });
  });

  it('lets a user edit, change the password, make an access token, and delete the account', async () => {
    const u = await newUser(srv.url, 'selfie');
    expect((await u.put('/api/user/self', { display_name: 'Selfie' })).body.success).toBe(true);
    expect((await u.put('/api/user/self', { password: 'short', original_password: 'password123' })).body.success).toBe(false);
    expect((await u.put('/api/user/self', { password: 'newpassword', original_password: 'password123' })).body.success).toBe(true);
    const fresh = new ApiClient(srv.url);
    expect((await fresh.login('selfie', 'newpassword')).body.success).toBe(true);
    expect((await fresh.get('/api/user/self')).body.data.display_name).toBe('Selfie');

    const token = (await u.get('/api/user/token')).body.data as string;
    expect(token).toMatch(/^[0-9a-zA-Z]{32}$/);
    const viaToken = new ApiClient(srv.url);
    viaToken.accessToken = token;
    expect((await viaToken.get('/api/user/self')).body.data.username).toBe('selfie');
    const bad = new ApiClient(srv.url);
    bad.accessToken = 'not-a-token';
    expect((await bad.get('/api/user/self')).status).toBe(401);

    expect((await u.del('/api/user/self')).body.success).toBe(true);
    expect((await fresh.get('/api/user/self')).status).toBe(401);
    expect((await new ApiClient(srv.url).login('selfie', 'newpassword')).body.success).toBe(false);
    expect((await new ApiClient(srv.url).post('/api/user/register', { username: 'selfie', password: 'password123' })).body.message).toMatch(/deregistered/);
    expect((await root.del('/api/user/self')).body.success).toBe(false);
  });

  it('lists users in the paged shape with p=0 read as page 1 and DeletedAt on every row', async () => {
    for (const n of ['pg1', 'pg2', 'pg3']) await newUser(srv.url, n);
    const first = await root.get('/api/user/?p=0&page_size=2');
    expect(first.body.data).toMatchObject({ page: 1, page_size: 2 });
    expect(first.body.data.items).toHaveLength(2);
    expect(first.body.data.total).toBeGreaterThanOrEqual(4);
    for (const u of first.body.data.items) expect(u).toHaveProperty('DeletedAt');
    const second = await root.get('/api/user/?p=2&page_size=2');
    expect(second.body.data.page).toBe(2);
    expect(second.body.data.items[0].id).not.toBe(first.body.data.items[0].id);
    const search = await root.get('/api/user/search?keyword=pg&group=default&p=1&page_size=10');
    expect(search.body.data.items.map((u: { username: string }) => u.username).sort()).toEqual(['pg1', 'pg2', 'pg3']);
    const none = await root.get('/api/user/search?keyword=pg&group=vip');
    expect(none.body.data).toMatchObject({ items: [], total: 0 });
  });

  it('applies the manage actions with their rules and returns {status, role}', async () => {
    const target = await newUser(srv.url, 'managed');
    const id = target.userId!;
    expect((await root.post('/api/user/manage', { id, action: 'disable' })).body.data).toEqual({ status: 2, role: 1 });
    // The ban ends the user's sessions at once (session-revocation.api.test.ts covers the rest).
    expect((await target.get('/api/user/self')).status).toBe(401);
    expect((await root.post('/api/user/manage', { id, action: 'enable' })).body.data).toEqual({ status: 1, role: 1 });
    await target.login('managed', 'password123');
    expect((await target.get('/api/user/self')).body.success).toBe(true);
    expect((await root.post('/api/user/manage', { id, action: 'promote' })).body.data).toEqual({ status: 1, role: 10 });
    expect((await root.post('/api/user/manage', { id, action: 'promote' })).body.message).toMatch(/already an admin/);
    await target.login('managed', 'password123');
    expect((await target.get('/api/user/?p=1')).body.success).toBe(true);
    expect((await root.post('/api/user/manage', { id, action: 'demote' })).body.data).toEqual({ status: 1, role: 1 });
    await target.login('managed', 'password123');
    expect((await target.get('/api/user/?p=1')).body).toMatchObject({ success: false, message: 'No permission for this operation' });
    expect((await root.post('/api/user/manage', { id, action: 'demote' })).body.message).toMatch(/already a normal user/);
    expect((await root.post('/api/user/manage', { id, action: 'explode' })).body.message).toMatch(/Invalid action/);
    expect((await root.post('/api/user/manage', { id: 99999, action: 'enable' })).body.message).toMatch(/does not exist/);
    expect((await root.post('/api/user/manage', { id, action: 'delete' })).body.success).toBe(true);
    const row = (await root.get(`/api/user/${id}`)).body.data;
    expect(row.DeletedAt).not.toBeNull();
    expect((await target.get('/api/user/self')).status).toBe(401);
  });

  it('protects the super admin and keeps admins below their own level', async () => {
    const admin = await newUser(srv.url, 'admin1');
    await root.post('/api/user/manage', { id: admin.userId, action: 'promote' });
    await admin.login('admin1', 'password123');
    const peer = await newUser(srv.url, 'admin2');
    await root.post('/api/user/manage', { id: peer.userId, action: 'promote' });
    const plain = await newUser(srv.url, 'plain1');

    expect((await admin.post('/api/user/manage', { id: 1, action: 'disable' })).body.success).toBe(false);
    expect((await root.post('/api/user/manage', { id: 1, action: 'disable' })).body.message).toMatch(/cannot be disabled/);
    expect((await root.post('/api/user/manage', { id: 1, action: 'delete' })).body.message).toMatch(/cannot be deleted/);
    expect((await root.post('/api/user/manage', { id: 1, action: 'demote' })).body.message).toMatch(/cannot be demoted/);
    expect((await admin.post('/api/user/manage', { id: plain.userId, action: 'promote' })).body.message).toMatch(/Only the super admin/);
    expect((await admin.post('/api/user/manage', { id: peer.userId, action: 'disable' })).body.message).toMatch(/same or a higher role/);
    expect((await admin.get(`/api/user/${peer.userId}`)).body.message).toMatch(/same or a higher role/);
    expect((await admin.get('/api/user/1')).body.success).toBe(false);
    expect((await admin.get(`/api/user/${plain.userId}`)).body.data.username).toBe('plain1');
    expect((await admin.put('/api/user/', { id: 1, display_name: 'x' })).body.success).toBe(false);
    expect((await admin.put('/api/user/', { id: plain.userId, role: 10 })).body.message).toMatch(/Cannot raise/);
    expect((await admin.post('/api/user/manage', { id: plain.userId, action: 'disable' })).body.data.status).toBe(2);
  });

  it('lets an admin create and edit users, with quota set or added atomically and logged', async () => {
    expect((await root.post('/api/user/', { username: '', password: '' })).body.message).toMatch(/enter username and password/);
    expect((await root.post('/api/user/', { username: 'created1', password: 'password123', display_name: 'C One' })).body.success).toBe(true);
    const list = await root.get('/api/user/search?keyword=created1');
    const u = list.body.data.items[0];
    expect(u).toMatchObject({ username: 'created1', display_name: 'C One', role: 1, quota: 0 });
    const r1 = await root.put('/api/user/', { ...u, id: u.id, quota: 5000, group: 'vip', password: '' });
    expect(r1.body.data).toMatchObject({ quota: 5000, group: 'vip' });
    const r2 = await root.put('/api/user/', { id: u.id, add_quota: -1000 });
    expect(r2.body.data.quota).toBe(4000);
    expect((await root.put('/api/user/', { id: u.id, add_quota: -999999 })).body.message).toMatch(/negative/);
    const logs = await srv.ctx.db.db.selectFrom('logs').selectAll().where('user_id', '=', u.id).where('type', '=', 3).execute();
    expect(logs.length).toBe(2);
    const again = new ApiClient(srv.url);
    expect((await again.login('created1', 'password123')).body.success).toBe(true);
  });

  it('answers /api/user/self/groups and /api/user/models with their shapes', async () => {
    const u = await newUser(srv.url, 'grouper');
    const groups = (await u.get('/api/user/self/groups')).body.data;
    // The client asks in English: the unsaved defaults answer in English (default-data-lang.api.test.ts covers zh).
    expect(groups.default).toEqual({ ratio: 1, desc: 'Default group' });
    expect(groups.vip).toEqual({ ratio: 1, desc: 'VIP group' });
    expect((await u.get('/api/user/models')).body.data).toEqual([]);
  });
});

describe('GENERATE_DEFAULT_TOKEN', () => {
  it('gives a new user an unlimited initial token', async () => {
    const srv = await startTestServer({ env: { GENERATE_DEFAULT_TOKEN: 'true' } });
    try {
      const u = await newUser(srv.url, 'tokened');
      const tokens = (await u.get('/api/token/?p=0&size=10')).body.data;
      expect(tokens).toHaveLength(1);
      expect(tokens[0]).toMatchObject({ name: "tokened's initial token", unlimited_quota: true, status: 1 });
    } finally {
      await srv.close();
    }
  });
});
