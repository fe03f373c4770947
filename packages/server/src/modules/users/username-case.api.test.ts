import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../db/dialect.js';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/**
 * Issue 29: `ROOT` could be created beside `root` on SQLite and PostgreSQL, and on MariaDB `ROOT`
 * signed in as root. Names are now one name ignoring case on every database (migration 0014's
 * unique key, not the database's collation: the MySQL test databases are `utf8mb4_bin`), and a
 * sign-in by name ignores case everywhere, its failures counted on the account it names.
 */
const TAKEN_IGNORING_CASE = 'Username already exists (usernames ignore case: ROOT and root are one name) or has been deregistered';
const TAKEN = 'Username already exists or has been deregistered';
const LOCKED = 'Too many failed sign-in attempts for this account. Try again in 1 min';
const WRONG = 'Username or password incorrect, or user banned';

describe.each(testDbKinds())('usernames unique ignoring case on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind, env: { LOGIN_FAILURE_LIMIT: '3', LOGIN_FAILURE_WINDOW: '60' } });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  const rows = async () =>
    (await srv.ctx.db.db.selectFrom('users').select(['id', 'username', 'username_key']).orderBy('id').execute()).map((r) => [Number(r.id), r.username, r.username_key]);
  const register = (username: string, lang = 'en') => {
    const c = new ApiClient(srv.url);
    c.lang = lang;
    return c.post('/api/user/register', { username, password: 'password123', password2: 'password123' });
  };

  it('refuses ROOT, Root and full-width ＲＯＯＴ beside root at sign-up, creating nothing', async () => {
    const before = await rows();
    expect(before).toEqual([[1, 'root', 'root']]);
    for (const name of ['ROOT', 'Root', 'ＲＯＯＴ']) {
      const r = await register(name);
      expect(r.status, name).toBe(200);
      expect(r.body, name).toEqual({ success: false, message: TAKEN_IGNORING_CASE });
    }
    expect((await register('rOOt', 'zh')).body).toEqual({ success: false, message: '用户名已存在（用户名不区分大小写，如 ROOT 与 root 视为同一用户名），或已注销' });
    expect((await register('root')).body).toEqual({ success: false, message: TAKEN });
    expect(await rows()).toEqual(before);
  });

  it('refuses ROOT in an admin create and an admin rename, leaving the user as it was', async () => {
    expect((await root.post('/api/user/', { username: 'ROOT', password: 'password123' })).body).toEqual({ success: false, message: TAKEN_IGNORING_CASE });
    const mallory = await newUser(srv.url, 'mallory');
    const rename = await root.put('/api/user/', { id: mallory.userId, username: 'ROOT' });
    expect(rename.body).toEqual({ success: false, message: TAKEN_IGNORING_CASE });
    expect((await mallory.get('/api/user/self')).body.data).toMatchObject({ id: mallory.userId, username: 'mallory' });
    // Another spelling of the user's own name is theirs: the admin may re-case it.
    expect((await root.put('/api/user/', { id: mallory.userId, username: 'Mallory' })).body.success).toBe(true);
    expect(await rows()).toEqual([
      [1, 'root', 'root'],
      [mallory.userId, 'Mallory', 'mallory'],
    ]);
  });

  it('refuses a self rename to rOOt, lets a user re-case their own name, and signs them in with any case', async () => {
    const casey = await newUser(srv.url, 'casey');
    expect((await casey.put('/api/user/self', { username: 'rOOt' })).body).toEqual({ success: false, message: TAKEN_IGNORING_CASE });
    expect((await casey.put('/api/user/self', { username: 'MALLORY' })).body).toEqual({ success: false, message: TAKEN_IGNORING_CASE });
    expect((await casey.put('/api/user/self', { username: 'Casey' })).body).toEqual({ success: true, message: '' });
    const again = await new ApiClient(srv.url).login('CASEY', 'password123');
    expect(again.body).toMatchObject({ success: true, data: { id: casey.userId, username: 'Casey' } });
  });

  it('signs ROOT in as root with root’s password, the same on every database', async () => {
    for (const name of ['ROOT', 'Root', 'ｒｏｏｔ']) {
      const r = await new ApiClient(srv.url).login(name, '123456');
      expect(r.body, name).toMatchObject({ success: true, data: { id: 1, username: 'root', role: 100 } });
    }
    expect((await new ApiClient(srv.url).login('ROOT', 'not-the-password')).body).toEqual({ success: false, message: WRONG });
    // That failure was root's: two more in other spellings lock root, whatever spelling comes next.
    const quiet = await newUser(srv.url, 'locktest');
    for (const name of ['LOCKTEST', 'LockTest', 'locktest']) expect((await new ApiClient(srv.url).login(name, 'wrong-password')).body.message).toBe(WRONG);
    expect((await new ApiClient(srv.url).login('locktest', 'password123')).body).toEqual({ success: false, message: LOCKED });
    expect(quiet.userId).toBeGreaterThan(1);
    // An unknown name is counted the same way: its spellings share one count, as they would share one account.
    for (const name of ['GHOSTLY', 'Ghostly', 'ghostly']) expect((await new ApiClient(srv.url).login(name, 'whatever-1')).body.message).toBe(WRONG);
    expect((await new ApiClient(srv.url).login('gHoStLy', 'whatever-1')).body.message).toBe(LOCKED);
  });

  it('folds beyond ASCII: Straße is STRASSE, ΣΟΦΟΣ is σοφος', async () => {
    await newUser(srv.url, 'Straße');
    expect((await register('STRASSE')).body).toEqual({ success: false, message: TAKEN_IGNORING_CASE });
    expect((await register('strasse')).body).toEqual({ success: false, message: TAKEN_IGNORING_CASE });
    await newUser(srv.url, 'ΣΟΦΟΣ');
    expect((await register('σοφος')).body).toEqual({ success: false, message: TAKEN_IGNORING_CASE });
    expect((await new ApiClient(srv.url).login('straße', 'password123')).body).toMatchObject({ success: true, data: { username: 'Straße' } });
  });

  it('holds in the database: spellings registering at once give one account, and a direct insert of another spelling fails', async () => {
    const results = await Promise.all(['Racer', 'RACER', 'racer', 'rAcEr', 'RaCeR'].map((name) => register(name)));
    expect(results.filter((r) => r.body.success)).toHaveLength(1);
    for (const r of results.filter((x) => !x.body.success)) expect([TAKEN, TAKEN_IGNORING_CASE]).toContain(r.body.message);
    const racers = await srv.ctx.db.db.selectFrom('users').select('id').where('username_key', '=', 'racer').execute();
    expect(racers).toHaveLength(1);
    const insert = srv.ctx.users.insert({ username: 'RACER', password: '' });
    await expect(insert).rejects.toSatisfy(isUniqueViolation);
  });
});
