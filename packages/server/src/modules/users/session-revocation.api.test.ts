import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';
import { SUDO_WINDOW_SEC } from './users.service.js';

/** Another browser signed in as the same user. */
async function secondSession(url: string, username: string, password = 'password123'): Promise<ApiClient> {
  const c = new ApiClient(url);
  const r = await c.login(username, password);
  if (!r.body.success) throw new Error(`login ${username}: ${r.body.message}`);
  return c;
}

/** A copy of a client's cookie, kept so it can be replayed after the client itself was signed out. */
function copyOf(c: ApiClient): ApiClient {
  const copy = new ApiClient(c.baseUrl);
  copy.cookie = c.cookie;
  copy.userId = c.userId;
  return copy;
}

describe.each(testDbKinds())('ending sessions on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  const sessionCount = async (userId: number) => (await srv.ctx.db.db.selectFrom('sessions').select('id').where('user_id', '=', userId).execute()).length;
  /** Moves a user's sign-ins `seconds` into the past (past the sudo window, say). */
  const signedInAgo = (userId: number, seconds: number) =>
    srv.ctx.db.db.updateTable('sessions').set({ created_at: Math.floor(Date.now() / 1000) - seconds }).where('user_id', '=', userId).execute();

  describe('changing one\'s own password', () => {
    it('requires the current password, with a clear message in both languages', async () => {
      const a = await newUser(srv.url, 'pwcheck');
      // Past the few minutes after signing in during which the current password is not asked for.
      await signedInAgo(a.userId!, SUDO_WINDOW_SEC + 60);
      expect((await a.put('/api/user/self', { password: 'newpassword1' })).body).toEqual({ success: false, message: 'Enter your current password to change it (not needed within 5 minutes of signing in)' });
      expect((await a.put('/api/user/self', { password: 'newpassword1', original_password: 'wrongpass1' })).body).toEqual({ success: false, message: 'The current password is incorrect' });
      a.lang = 'zh-CN';
      expect((await a.put('/api/user/self', { password: 'newpassword1', original_password: 'wrongpass1' })).body.message).toBe('当前密码错误');
      expect((await a.put('/api/user/self', { password: 'newpassword1' })).body.message).toBe('修改密码需要输入当前密码（登录后 5 分钟内可不填）');
      // Nothing changed: the old password still signs in, and other fields sent with a bad attempt were not applied.
      expect((await a.put('/api/user/self', { display_name: 'Sneaky', password: 'newpassword1', original_password: 'nope' })).body.success).toBe(false);
      expect((await a.get('/api/user/self')).body.data.display_name).toBe('pwcheck');
      expect((await new ApiClient(srv.url).login('pwcheck', 'password123')).body.success).toBe(true);
      // Editing other fields needs no password.
      expect((await a.put('/api/user/self', { display_name: 'Checked' })).body.success).toBe(true);
    });

    it('within minutes of a fresh sign-in, a session may change the password without the current one (the reference console sends none)', async () => {
      const a = await newUser(srv.url, 'pwsudo');
      expect((await a.put('/api/user/self', { password: 'newpassword1' })).body.success).toBe(true);
      expect((await new ApiClient(srv.url).login('pwsudo', 'newpassword1')).body.success).toBe(true);
      // A wrong current password is still refused when one is sent.
      expect((await a.put('/api/user/self', { password: 'newpassword2', original_password: 'wrongpass1' })).body.message).toBe('The current password is incorrect');
      // Once the window has passed, the current password is asked for again.
      await signedInAgo(a.userId!, SUDO_WINDOW_SEC + 1);
      expect((await a.put('/api/user/self', { password: 'newpassword2' })).body.success).toBe(false);
      // An access token never counts as a fresh sign-in.
      const script = new ApiClient(srv.url);
      script.accessToken = (await (await secondSession(srv.url, 'pwsudo', 'newpassword1')).get('/api/user/token')).body.data as string;
      expect((await script.put('/api/user/self', { password: 'newpassword3' })).body.success).toBe(false);
    });

    it('ends every other session and keeps the one that made the change', async () => {
      const a = await newUser(srv.url, 'pwself');
      const b = await secondSession(srv.url, 'pwself');
      expect((await b.get('/api/user/self')).body.success).toBe(true);
      const r = await a.put('/api/user/self', { password: 'newpassword1', original_password: 'password123' });
      expect(r.body.success).toBe(true);
      expect((await b.get('/api/user/self')).status).toBe(401);
      expect((await a.get('/api/user/self')).body.data.username).toBe('pwself');
      expect(await sessionCount(a.userId!)).toBe(1);
      expect((await new ApiClient(srv.url).login('pwself', 'password123')).body.success).toBe(false);
      expect((await new ApiClient(srv.url).login('pwself', 'newpassword1')).body.success).toBe(true);
    });

    it('through an access token also needs the current password, ends all sessions and keeps the token', async () => {
      const a = await newUser(srv.url, 'pwtoken');
      const token = (await a.get('/api/user/token')).body.data as string;
      const script = new ApiClient(srv.url);
      script.accessToken = token;
      expect((await script.put('/api/user/self', { password: 'newpassword1' })).body.success).toBe(false);
      expect((await script.put('/api/user/self', { password: 'newpassword1', original_password: 'password123' })).body.success).toBe(true);
      expect((await a.get('/api/user/self')).status).toBe(401);
      expect((await script.get('/api/user/self')).body.data.username).toBe('pwtoken');
    });
  });

  it('a password reset by email link ends every session of the user', async () => {
    const a = await newUser(srv.url, 'resetme');
    await srv.ctx.users.update(a.userId!, { email: 'resetme@example.com' });
    await srv.ctx.codes.put('reset', 'resetme@example.com', 'a'.repeat(32), 60_000);
    const r = await new ApiClient(srv.url).post('/api/user/reset', { email: 'resetme@example.com', token: 'a'.repeat(32) });
    expect(r.body.success).toBe(true);
    expect((await a.get('/api/user/self')).status).toBe(401);
    expect(await sessionCount(a.userId!)).toBe(0);
  });

  it('a ban ends the sessions for good: re-enabling does not bring them back', async () => {
    const a = await newUser(srv.url, 'banned1');
    expect((await root.post('/api/user/manage', { id: a.userId, action: 'disable' })).body.success).toBe(true);
    expect((await a.get('/api/user/self')).status).toBe(401);
    expect((await new ApiClient(srv.url).login('banned1', 'password123')).body.success).toBe(false);
    expect((await root.post('/api/user/manage', { id: a.userId, action: 'enable' })).body.success).toBe(true);
    expect((await a.get('/api/user/self')).status).toBe(401);
    expect((await new ApiClient(srv.url).login('banned1', 'password123')).body.success).toBe(true);
  });

  it('a ban ends the access token for good, like the sessions: re-enabling does not bring it back', async () => {
    const a = await newUser(srv.url, 'bantoken');
    const script = new ApiClient(srv.url);
    script.accessToken = (await a.get('/api/user/token')).body.data as string;
    await root.post('/api/user/manage', { id: a.userId, action: 'disable' });
    expect((await script.get('/api/user/self')).status).toBe(401);
    expect((await script.get('/api/token/?p=0&size=10')).body.success).toBe(false);
    await root.post('/api/user/manage', { id: a.userId, action: 'enable' });
    expect((await script.get('/api/user/self')).body).toEqual({ success: false, message: 'No permission for this operation: invalid access token' });
    // Signed in again, the user makes a new one.
    const back = await secondSession(srv.url, 'bantoken');
    script.accessToken = (await back.get('/api/user/token')).body.data as string;
    expect((await script.get('/api/user/self')).body.data.username).toBe('bantoken');
  });

  it('a password change in a session ends the access token too; an admin\'s password edit and a reset do as well', async () => {
    const a = await newUser(srv.url, 'pwtok2');
    const script = new ApiClient(srv.url);
    script.accessToken = (await a.get('/api/user/token')).body.data as string;
    expect((await a.put('/api/user/self', { password: 'newpassword1', original_password: 'password123' })).body.success).toBe(true);
    expect((await script.get('/api/user/self')).status).toBe(401);
    expect((await a.get('/api/user/self')).body.data.username).toBe('pwtok2');

    script.accessToken = (await a.get('/api/user/token')).body.data as string;
    expect((await root.put('/api/user/', { id: a.userId, password: 'adminset123' })).body.success).toBe(true);
    expect((await script.get('/api/user/self')).status).toBe(401);

    const b = await secondSession(srv.url, 'pwtok2', 'adminset123');
    script.accessToken = (await b.get('/api/user/token')).body.data as string;
    await srv.ctx.users.update(a.userId!, { email: 'pwtok2@example.com' });
    await srv.ctx.codes.put('reset', 'pwtok2@example.com', 'b'.repeat(32), 60_000);
    expect((await new ApiClient(srv.url).post('/api/user/reset', { email: 'pwtok2@example.com', token: 'b'.repeat(32) })).body.success).toBe(true);
    expect((await script.get('/api/user/self')).status).toBe(401);
    const row = await srv.ctx.db.db.selectFrom('users').select('access_token').where('id', '=', a.userId!).executeTakeFirstOrThrow();
    expect(row.access_token).toBeNull();
  });

  it('promote and demote end the sessions', async () => {
    const a = await newUser(srv.url, 'roles1');
    await root.post('/api/user/manage', { id: a.userId, action: 'promote' });
    expect((await a.get('/api/user/self')).status).toBe(401);
    const admin = await secondSession(srv.url, 'roles1');
    expect((await admin.get('/api/user/?p=1')).body.success).toBe(true);
    await root.post('/api/user/manage', { id: a.userId, action: 'demote' });
    expect((await admin.get('/api/user/?p=1')).status).toBe(401);
    expect((await admin.get('/api/user/self')).status).toBe(401);
  });

  it('an admin edit of the password or the role ends the sessions; other edits do not', async () => {
    const a = await newUser(srv.url, 'edited1');
    expect((await root.put('/api/user/', { id: a.userId, display_name: 'Edited', password: '' })).body.success).toBe(true);
    expect((await a.get('/api/user/self')).body.data.display_name).toBe('Edited');

    expect((await root.put('/api/user/', { id: a.userId, password: 'adminset123' })).body.success).toBe(true);
    expect((await a.get('/api/user/self')).status).toBe(401);

    const b = await secondSession(srv.url, 'edited1', 'adminset123');
    expect((await root.put('/api/user/', { id: a.userId, role: 10 })).body.data.role).toBe(10);
    expect((await b.get('/api/user/self')).status).toBe(401);
    const c = await secondSession(srv.url, 'edited1', 'adminset123');
    expect((await root.put('/api/user/', { id: a.userId, role: 1 })).body.data.role).toBe(1);
    expect((await c.get('/api/user/self')).status).toBe(401);
  });

  it('deleting one\'s own account ends every session and the access token', async () => {
    const a = await newUser(srv.url, 'selfdel');
    const b = await secondSession(srv.url, 'selfdel');
    const script = new ApiClient(srv.url);
    script.accessToken = (await a.get('/api/user/token')).body.data as string;
    const aCopy = copyOf(a);
    expect((await a.del('/api/user/self')).body.success).toBe(true);
    expect(a.cookie).toBe('');
    expect((await aCopy.get('/api/user/self')).status).toBe(401);
    expect((await b.get('/api/user/self')).status).toBe(401);
    expect((await script.get('/api/user/self')).status).toBe(401);
    expect(await sessionCount(a.userId!)).toBe(0);
  });

  it('deletion by an admin (soft and hard) ends every session and the access token', async () => {
    for (const how of ['manage', 'hard'] as const) {
      const a = await newUser(srv.url, `del${how}`);
      const script = new ApiClient(srv.url);
      script.accessToken = (await a.get('/api/user/token')).body.data as string;
      const r = how === 'manage' ? await root.post('/api/user/manage', { id: a.userId, action: 'delete' }) : await root.del(`/api/user/${a.userId}`);
      expect(r.body.success).toBe(true);
      expect((await a.get('/api/user/self')).status).toBe(401);
      expect((await script.get('/api/user/self')).status).toBe(401);
      expect(await sessionCount(a.userId!)).toBe(0);
    }
  });

  it('ending one user\'s sessions leaves other users signed in', async () => {
    const a = await newUser(srv.url, 'bystand1');
    const b = await newUser(srv.url, 'bystand2');
    await root.post('/api/user/manage', { id: a.userId, action: 'disable' });
    expect((await b.get('/api/user/self')).body.success).toBe(true);
    expect((await root.get('/api/user/self')).body.success).toBe(true);
  });
});

describe('password change rate limit', () => {
  it('counts current-password attempts against the critical limit, like sign-in', async () => {
    const srv = await startTestServer({ env: { CRITICAL_RATE_LIMIT_ENABLE: 'true', CRITICAL_RATE_LIMIT: '4' } });
    try {
      const a = await newUser(srv.url, 'guesser'); // register + login: 2 hits
      expect((await a.put('/api/user/self', { password: 'newpassword1', original_password: 'guess0001' })).body.success).toBe(false);
      expect((await a.put('/api/user/self', { password: 'newpassword1', original_password: 'guess0002' })).body.success).toBe(false);
      const limited = await a.put('/api/user/self', { password: 'newpassword1', original_password: 'password123' });
      expect(limited.status).toBe(429);
      // Edits without a password are not limited.
      expect((await a.put('/api/user/self', { display_name: 'Still me' })).body.success).toBe(true);
    } finally {
      await srv.close();
    }
  });
});
