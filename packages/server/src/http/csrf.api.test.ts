import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

const REFUSED = /^Cross-site request refused: it did not come from this site\. Use the console itself; behind a reverse proxy, forward the Host header or set the server address: /;

describe('cross-site request protection for console sessions', () => {
  let srv: TestServer;
  let user: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer();
    user = await newUser(srv.url, 'csrfuser');
  });
  afterAll(() => srv?.close());

  const displayName = async () => (await user.get('/api/user/self')).body.data.display_name as string;

  it('refuses a form another site posts with the victim\'s session cookie, saying why, and changes nothing', async () => {
    const tokens = async () => (await srv.ctx.db.db.selectFrom('tokens').select('id').where('user_id', '=', user.userId!).execute()).length;
    const before = await tokens();
    // What a hidden auto-submitting <form method="post" action=".../api/token/"> on evil.example makes the browser send.
    const r = await fetch(`${srv.url}/api/token/`, {
      method: 'POST',
      headers: { cookie: user.cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
      body: 'name=pwned&unlimited_quota=true',
    });
    expect(r.status).toBe(403);
    const body = (await r.json()) as { success: boolean; message: string };
    expect(body.success).toBe(false);
    expect(body.message).toMatch(REFUSED);
    expect(body.message).toContain('Origin https://evil.example');
    expect(await tokens()).toBe(before);
    // The same call from the console itself goes through.
    expect((await user.call('POST', '/api/token/', { name: 'mine' }, { Origin: srv.url })).body.success).toBe(true);
    expect(await tokens()).toBe(before + 1);
  });

  it('refuses a cross-site write even when it carries New-Api-User, in zh too; Sec-Fetch-Site alone also counts', async () => {
    const evil = await user.call('PUT', '/api/user/self', { display_name: 'pwned' }, { Origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body.message).toMatch(REFUSED);
    user.lang = 'zh-CN';
    const zh = await user.call('DELETE', '/api/user/self', undefined, { 'Sec-Fetch-Site': 'cross-site' });
    user.lang = 'en';
    expect(zh.status).toBe(403);
    expect(zh.body.message).toMatch(/^跨站请求已被拒绝/);
    expect((await user.get('/api/user/self')).body.success).toBe(true);
    // The opaque origin of a sandboxed frame or a data: page is another site too.
    expect((await user.call('PUT', '/api/user/self', { display_name: 'x' }, { Origin: 'null' })).status).toBe(403);
    // The playground is a session-authenticated write as well.
    const pg = await user.call('POST', '/pg/chat/completions', { model: 'gpt-4o-mini', messages: [] }, { Origin: 'https://evil.example' });
    expect(pg.status).toBe(403);
    expect(pg.body.error).toMatchObject({ type: 'invalid_request_error', code: 'csrf_rejected', message: expect.stringMatching(REFUSED) });
    expect(await displayName()).toBe('csrfuser');
  });

  it('lets the console through: same origin, the configured server address, and requests without Origin', async () => {
    expect((await user.call('PUT', '/api/user/self', { display_name: 'Same Origin' }, { Origin: srv.url, 'Sec-Fetch-Site': 'same-origin' })).body.success).toBe(true);
    expect(await displayName()).toBe('Same Origin');
    // A script or an older client sends no Origin and no Sec-Fetch-Site.
    expect((await user.put('/api/user/self', { display_name: 'No Origin' })).body.success).toBe(true);
    // Behind a proxy that rewrites Host, the public address the admin configured is this site.
    const root = await rootClient(srv.url);
    expect((await root.put('/api/option/', { key: 'ServerAddress', value: 'https://gate.example.com' })).body.success).toBe(true);
    expect((await user.call('PUT', '/api/user/self', { display_name: 'Via Proxy' }, { Origin: 'https://gate.example.com' })).body.success).toBe(true);
    expect(await displayName()).toBe('Via Proxy');
    expect((await user.call('PUT', '/api/user/self', { display_name: 'x' }, { Origin: 'https://gate.example.com.evil.example' })).status).toBe(403);
  });

  it('checks a cookie-authenticated write whatever Authorization header rides along', async () => {
    const tokens = async () => (await srv.ctx.db.db.selectFrom('tokens').select('id').where('user_id', '=', user.userId!).execute()).length;
    const before = await tokens();
    // The auth layer prefers the live session to the header, so junk here used to exempt a write the cookie made.
    const junk = await user.call('POST', '/api/token/', { name: 'pwned' }, { Origin: 'https://evil.example', Authorization: 'Bearer junk' });
    expect(junk.status).toBe(403);
    expect(junk.body).toEqual({ success: false, message: expect.stringMatching(REFUSED) });
    expect(junk.body.message).toContain('Origin https://evil.example');
    const named = await user.call('PUT', '/api/user/self', { display_name: 'pwned' }, { 'Sec-Fetch-Site': 'cross-site', Authorization: 'anything' });
    expect(named.status).toBe(403);
    expect(named.body.message).toMatch(REFUSED);
    // Even the user's own valid access token beside the cookie: the cookie still travels, so the origin counts.
    const token = (await user.get('/api/user/token')).body.data as string;
    const both = await user.call('PUT', '/api/user/self', { display_name: 'pwned' }, { Origin: 'https://evil.example', Authorization: `Bearer ${token}` });
    expect(both.status).toBe(403);
    const pg = await user.call('POST', '/pg/chat/completions', { model: 'gpt-4o-mini', messages: [] }, { Origin: 'https://evil.example', Authorization: 'Bearer junk' });
    expect(pg.status).toBe(403);
    expect(pg.body.error).toMatchObject({ code: 'csrf_rejected' });
    expect(await tokens()).toBe(before);
    expect(await displayName()).not.toBe('pwned');
    // From the console itself the same call, header and all, goes through.
    const own = await user.call('POST', '/api/token/', { name: 'mine-too' }, { Origin: srv.url, Authorization: 'Bearer junk' });
    expect(own.body).toMatchObject({ success: true });
    expect(await tokens()).toBe(before + 1);
  });

  it('exempts calls without the session cookie or with an access token, and reads (GET)', async () => {
    const token = (await user.get('/api/user/token')).body.data as string;
    const script = new ApiClient(srv.url);
    script.accessToken = token;
    expect((await script.call('PUT', '/api/user/self', { display_name: 'By Token' }, { Origin: 'https://elsewhere.example' })).body.success).toBe(true);
    expect(await displayName()).toBe('By Token');
    script.accessToken = `Bearer ${token}`;
    const bearer = await script.call('PUT', '/api/user/self', { display_name: 'By Bearer' }, { Origin: 'https://elsewhere.example', 'Sec-Fetch-Site': 'cross-site' });
    expect(bearer.status).toBe(200);
    expect(bearer.body).toMatchObject({ success: true });
    expect(await displayName()).toBe('By Bearer');
    // Cookie-less calls carry no ambient credential: sign-in from anywhere, payment notifications.
    const anon = new ApiClient(srv.url);
    expect((await anon.call('POST', '/api/user/login', { username: 'csrfuser', password: 'password123' }, { Origin: 'https://elsewhere.example' })).body.success).toBe(true);
    // A GET never changes state and is not checked (OAuth callbacks come back as GETs from the provider).
    expect((await user.call('GET', '/api/user/self', undefined, { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' })).body.success).toBe(true);
  });
});
