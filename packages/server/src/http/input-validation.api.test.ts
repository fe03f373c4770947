import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient, type ApiResult } from '../test-support/api-client.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

/**
 * Regression tests for the input-validation findings of the attack run (issue 10): every bad
 * input is refused with a clear `{success:false, message}` and never reaches the database —
 * on PostgreSQL a NUL byte, 2^63 or a huge page number used to answer HTTP 500.
 */
const BIG = '9223372036854775808'; // 2^63: above any BIGINT
const HUGE = '99999999999999999999';

function refused(r: ApiResult, message?: RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.success, JSON.stringify(r.body)).toBe(false);
  if (message) expect(r.body.message).toMatch(message);
}

/** Sends a raw JSON text, so numbers like 2^63 reach the server exactly as written. */
async function rawJson(c: ApiClient, method: string, path: string, json: string): Promise<ApiResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'accept-language': 'en', 'New-Api-User': String(c.userId ?? -1) };
  if (c.cookie) headers.cookie = c.cookie;
  const res = await fetch(c.baseUrl + path, { method, headers, body: json });
  return { status: res.status, body: JSON.parse(await res.text()), headers: res.headers };
}

describe.each(testDbKinds())('input validation on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  let anon: ApiClient;
  let bob: ApiClient;
  let bobId: number;

  const userRow = (id: number) => srv.ctx.db.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    anon = new ApiClient(srv.url);
    bob = await newUser(srv.url, 'bob');
    bobId = bob.userId!;
  });
  afterAll(() => srv?.close());

  it('accepts only the roles 1, 10 and 100 on user create and update', async () => {
    for (const role of [9, -7, 2, 1.5, '9']) {
      refused(await root.post('/api/user/', { username: `r${String(role).replace(/\W/g, '')}`, password: 'password123', role }), /role/i);
      refused(await root.put('/api/user/', { id: bobId, role }), /role/i);
    }
    expect(Number((await userRow(bobId)).role)).toBe(1);
    expect((await root.put('/api/user/', { id: bobId, role: 10 })).body.success).toBe(true);
    expect(Number((await userRow(bobId)).role)).toBe(10);
    expect((await root.put('/api/user/', { id: bobId, role: 1 })).body.success).toBe(true);
    // A role change ends bob's sessions (issue 10): sign in again for the tests that follow.
    expect((await bob.login('bob', 'password123')).body.success).toBe(true);
    for (const id of [1.5, -3, BIG, 'abc']) refused(await root.post('/api/user/manage', { id, action: 'disable' }));
  });

  it('refuses look-alike, invisible, bidi and control characters in usernames', async () => {
    const bad: Array<[string, RegExp]> = [
      ['pаypal', /scripts/], // Cyrillic а among Latin letters
      ['аdmin', /scripts/],
      ['ab\u200bcd', /invisible/],
      ['ab\u2060cd', /invisible/],
      ['ab\u202ecd', /invisible/],
      ['ab\u2066cd', /invisible/],
      ['ab\u0007cd', /invisible|control/],
      ['ab\u0000cd', /NUL|control/],
    ];
    for (const [name, message] of bad) {
      refused(await anon.post('/api/user/register', { username: name, password: 'password123' }), message);
      refused(await root.post('/api/user/', { username: name, password: 'password123' }), message);
      refused(await root.put('/api/user/', { id: bobId, username: name }), message);
      refused(await bob.put('/api/user/self', { username: name }), message);
    }
    const names = await srv.ctx.db.db.selectFrom('users').select('username').execute();
    expect(names.map((n) => n.username).sort()).toEqual(['bob', 'root']);
  });

  it('stores usernames NFKC-normalised and keeps single-script and CJK names working', async () => {
    expect((await anon.post('/api/user/register', { username: 'ｆｕｌｌ２', password: 'password123' })).body.success).toBe(true);
    expect((await new ApiClient(srv.url).login('full2', 'password123')).body.success).toBe(true);
    expect((await new ApiClient(srv.url).login('ｆｕｌｌ２', 'password123')).body.success).toBe(true);
    refused(await anon.post('/api/user/register', { username: 'full2', password: 'password123' }), /already exists/);
    for (const name of ['Иван', '张三', 'tanaka田中たろう', 'kim김철수', 'o\u0301la']) {
      expect((await anon.post('/api/user/register', { username: name, password: 'password123' })).body, name).toMatchObject({ success: true });
    }
    const stored = await srv.ctx.db.db.selectFrom('users').select('username').where('username', '=', 'óla').executeTakeFirst();
    expect(stored?.username).toBe('óla');
  });

  it('refuses NUL in every anonymous and user string that reaches the database', async () => {
    refused(await anon.post('/api/user/register', { username: 'nul', password: 'password123\u0000' }), /NUL/);
    refused(await anon.post('/api/user/login', { username: 'root\u0000', password: '123456' }), /NUL/);
    refused(await anon.get('/api/reset_password?email=a%00b%40example.com'), /NUL/);
    refused(await anon.get('/api/verification?email=a%00b%40example.com'), /NUL/);
    refused(await bob.post('/api/token/', { name: 'to\u0000ken' }), /NUL/);
    refused(await bob.get('/api/token/search?keyword=a%00b'), /NUL/);
    refused(await bob.get('/api/log/self?p=1&token_name=a%00b'), /NUL/);
    refused(await root.get('/api/user/search?keyword=a%00b'), /NUL/);
    refused(await root.get('/api/log/?p=1&username=a%00b&model_name=x'), /NUL/);
    refused(await root.put('/api/option/', { key: 'Notice', value: 'hi\u0000there' }), /NUL/);
    refused(await bob.put('/api/user/self', { display_name: 'Bo\u0000b' }), /NUL|control/);
    refused(await root.put('/api/user/', { id: bobId, group: 'vi\u0000p' }), /NUL|control/);
    expect((await userRow(bobId)).display_name).toBe('bob');
  });

  it('refuses non-integer and out-of-range quotas; they are never stored', async () => {
    const before = Number((await userRow(bobId)).quota);
    for (const body of [{ add_quota: 1.5 }, { add_quota: '1.5' }, { quota: 1.5 }, { quota: '2.5' }, { add_quota: 1e300 }, { quota: true }]) {
      refused(await root.put('/api/user/', { id: bobId, ...body }), /integer|range/);
    }
    for (const json of [`{"id":${bobId},"quota":${BIG}}`, `{"id":${bobId},"add_quota":${BIG}}`, `{"id":${bobId},"add_quota":-${BIG}}`, `{"id":${bobId},"quota":"${BIG}"}`, `{"id":${bobId},"add_quota":9007199254740992}`]) {
      refused(await rawJson(root, 'PUT', '/api/user/', json), /range/);
    }
    expect(Number((await userRow(bobId)).quota)).toBe(before);
    expect((await root.put('/api/user/', { id: bobId, add_quota: 12345 })).body.success).toBe(true);
    expect(Number((await userRow(bobId)).quota)).toBe(before + 12345);
    refused(await rawJson(bob, 'POST', '/api/user/aff_transfer', `{"quota":${BIG}}`), /range/);
    refused(await bob.post('/api/user/aff_transfer', { quota: 1.5 }), /integer/);
  });

  it('refuses non-integer and out-of-range token quotas, expiries and ids', async () => {
    refused(await bob.post('/api/token/', { name: 'q', remain_quota: 1.5 }), /integer/);
    refused(await rawJson(bob, 'POST', '/api/token/', `{"name":"q","remain_quota":${BIG}}`), /range/);
    refused(await rawJson(bob, 'POST', '/api/token/', `{"name":"q","expired_time":${BIG}}`), /range/);
    refused(await bob.post('/api/token/', { name: 'q', expired_time: 1.5 }), /integer/);
    refused(await bob.post('/api/token/', { name: 'q', model_limits_enabled: true, model_limits: 'm,'.repeat(600) }), /long/);
    expect(await srv.ctx.db.db.selectFrom('tokens').select('id').where('name', '=', 'q').execute()).toHaveLength(0);
    const made = await bob.post('/api/token/', { name: 'ok', remain_quota: 100 });
    expect(made.body.success).toBe(true);
    refused(await rawJson(bob, 'PUT', '/api/token/', `{"id":${made.body.data.id},"remain_quota":${BIG}}`), /range/);
    refused(await rawJson(bob, 'PUT', '/api/token/', `{"id":${BIG},"name":"x"}`), /range/);
    refused(await bob.get(`/api/token/${HUGE}`), /range/);
    refused(await bob.del(`/api/token/${HUGE}`), /range/);
    refused(await root.get(`/api/user/${HUGE}`), /range/);
    refused(await root.del(`/api/user/${HUGE}`), /range/);
  });

  it('bounds page numbers and page sizes', async () => {
    for (const path of [`/api/user/?p=${HUGE}`, `/api/user/search?keyword=a&p=${HUGE}`, `/api/log/?p=${HUGE}`, '/api/log/?p=1000001', `/api/channel/?p=${HUGE}`, '/api/log/?p=1.5']) {
      refused(await root.get(path), /integer|range/);
    }
    refused(await bob.get(`/api/token/?p=${HUGE}&size=10`), /range/);
    refused(await bob.get(`/api/log/self?p=${HUGE}`), /range/);
    const big = await root.get('/api/log/?p=1&page_size=100000');
    expect(big.body.data.page_size).toBe(100);
    expect((await root.get('/api/user/?p=0')).body.data.page).toBe(1);
  });

  it('bounds log filters and the log clean-up timestamp', async () => {
    for (const q of [`start_timestamp=${HUGE}`, `end_timestamp=${BIG}`, `channel=${HUGE}`, `type=${HUGE}`, 'type=1.5', 'start_timestamp=abc']) {
      refused(await root.get(`/api/log/?p=1&${q}`), /integer|range/);
      refused(await root.get(`/api/log/stat?${q}`), /integer|range/);
    }
    refused(await bob.get(`/api/log/self/stat?start_timestamp=${HUGE}`), /range/);
    refused(await root.del(`/api/log/?target_timestamp=${HUGE}`), /range/);
    refused(await root.del('/api/log/?target_timestamp=1.5'), /integer/);
    expect((await root.get('/api/log/?p=1&type=&channel=&start_timestamp=&end_timestamp=')).body.success).toBe(true);
  });

  it('refuses over-long text instead of letting the database fail', async () => {
    refused(await root.put('/api/user/', { id: bobId, group: 'g'.repeat(65) }), /long/);
    refused(await root.put('/api/user/', { id: bobId, email: `${'e'.repeat(80)}@example.com` }), /email/i);
    expect((await userRow(bobId)).group).toBe('default');
  });

  it('says what was wrong in the caller language', async () => {
    anon.lang = 'zh';
    refused(await anon.post('/api/user/register', { username: 'pаypal', password: 'password123' }), /文字/);
    anon.lang = 'en';
  });
});
