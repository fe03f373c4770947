import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser } from '../test-support/api-client.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

const LOCKED = 'Too many failed sign-in attempts for this account. Try again in 1 min';
const THROTTLE = { LOGIN_FAILURE_LIMIT: '3', LOGIN_FAILURE_WINDOW: '2' };

/** The shared state the count lives in: the database always, Redis when the run has one. */
const backends = (): Array<[string, Record<string, string>]> => {
  const out: Array<[string, Record<string, string>]> = testDbKinds().map((k) => [k, {}]);
  if (process.env.TEST_REDIS_URL) out.push(['sqlite + redis', { REDIS_CONN_STRING: process.env.TEST_REDIS_URL }]);
  return out;
};

describe.each(backends())('sign-in throttled per account on %s', (label, extraEnv) => {
  let a: TestServer;
  let b: TestServer;
  const kind = label.startsWith('postgres') ? 'postgres' : label.startsWith('mysql') ? 'mysql' : 'sqlite';

  beforeAll(async () => {
    a = await startTestServer({ kind, env: { ...THROTTLE, ...extraEnv } });
    // A second node over the same database (and Redis): the count is shared, not per process.
    b = await startTestServer({ kind, env: { ...THROTTLE, ...extraEnv }, alongside: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const login = (srv: TestServer, name: string, password: string, lang = 'en') => {
    const c = new ApiClient(srv.url);
    c.lang = lang;
    return c.login(name, password);
  };

  it('locks an account after N failures on any node, even for the right password, and says for how long', async () => {
    const suffix = Math.random().toString(36).slice(2, 7);
    const name = `thr${suffix}`;
    await newUser(a.url, name);
    await newUser(a.url, `oth${suffix}`);
    expect((await login(a, name, 'wrong-pass-1')).body.message).toBe('Username or password incorrect, or user banned');
    expect((await login(b, name, 'wrong-pass-2')).body.success).toBe(false);
    expect((await login(a, name, 'wrong-pass-3')).body.success).toBe(false);

    const locked = await login(b, name, 'password123');
    expect(locked.status).toBe(200);
    expect(locked.body).toEqual({ success: false, message: LOCKED });
    expect((await login(a, name, 'password123', 'zh-CN')).body.message).toBe('该账户登录失败次数过多，请 1 分钟后再试');
    // Another account, from the same address, is not affected.
    expect((await login(a, `oth${suffix}`, 'password123')).body.success).toBe(true);

    // Once the window has passed the right password works again, and clears the count.
    await new Promise((r) => setTimeout(r, 2100));
    expect((await login(b, name, 'password123')).body.success).toBe(true);
    expect((await login(a, name, 'wrong-pass-4')).body.success).toBe(false);
    expect((await login(a, name, 'password123')).body.success).toBe(true);
  });

  it('counts the email and the username of one account together, and locks unknown names alike', async () => {
    const suffix = Math.random().toString(36).slice(2, 7);
    const u = await newUser(a.url, `em${suffix}`);
    await a.ctx.users.update(u.userId!, { email: `em${suffix}@example.com` });
    expect((await login(a, `em${suffix}`, 'nope-1')).body.success).toBe(false);
    expect((await login(a, `em${suffix}@example.com`, 'nope-2')).body.success).toBe(false);
    expect((await login(b, `em${suffix}@example.com`, 'nope-3')).body.success).toBe(false);
    expect((await login(a, `em${suffix}`, 'password123')).body.message).toBe(LOCKED);
    // A name nobody has gets the same answer after the same number of tries: no hint that it is unknown.
    for (let i = 0; i < 3; i++) expect((await login(a, `ghost${suffix}`, 'whatever-1')).body.message).toBe('Username or password incorrect, or user banned');
    expect((await login(b, `ghost${suffix}`, 'whatever-1')).body.message).toBe(LOCKED);
  });
});

describe('LOGIN_FAILURE_LIMIT=0', () => {
  it('turns the per-account throttle off', async () => {
    const srv = await startTestServer({ env: { LOGIN_FAILURE_LIMIT: '0' } });
    try {
      await newUser(srv.url, 'unthrottled');
      for (let i = 0; i < 12; i++) expect((await new ApiClient(srv.url).login('unthrottled', `bad-${i}-pass`)).status).toBe(200);
      expect((await new ApiClient(srv.url).login('unthrottled', 'password123')).body.success).toBe(true);
    } finally {
      await srv.close();
    }
  });
});
