import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../../test-support/api-client.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

describe('common and patterned passwords are refused where a password is chosen', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { REJECT_COMMON_PASSWORDS: 'true' } });
  });
  afterAll(() => srv?.close());

  it('at sign-up, with a clear message in both languages', async () => {
    const c = new ApiClient(srv.url);
    const en = await c.post('/api/user/register', { username: 'weak_en', password: '12345678', password2: '12345678' });
    expect(en.body).toEqual({ success: false, message: expect.stringMatching(/^This password is too common or predictable/) });
    c.lang = 'zh';
    const zh = await c.post('/api/user/register', { username: 'weak_zh', password: 'password123', password2: 'password123' });
    expect(zh.body.message).toMatch(/^密码太常见或有规律/);
    expect((await c.post('/api/user/register', { username: 'samename', password: 'samename!1', password2: 'samename!1' })).body.success).toBe(false);
    expect((await c.post('/api/user/register', { username: 'strong_one', password: 'Quiet-Harbor-42', password2: 'Quiet-Harbor-42' })).body.success).toBe(true);
  });

  it('on a password change and when an admin creates a user', async () => {
    const me = new ApiClient(srv.url);
    await me.post('/api/user/register', { username: 'changer', password: 'Quiet-Harbor-43', password2: 'Quiet-Harbor-43' });
    await me.login('changer', 'Quiet-Harbor-43');
    const change = await me.put('/api/user/self', { password: '87654321', original_password: 'Quiet-Harbor-43' });
    expect(change.body).toMatchObject({ success: false, message: expect.stringMatching(/too common/) });
    const root = await rootClient(srv.url);
    const created = await root.post('/api/user/', { username: 'made_weak', password: 'aaaaaaaa', display_name: 'x' });
    expect(created.body).toMatchObject({ success: false, message: expect.stringMatching(/too common/) });
    expect((await root.post('/api/user/', { username: 'made_ok', password: 'Quiet-Harbor-44', display_name: 'x' })).body.success).toBe(true);
  });

  it('refuses a username over 12 characters instead of cutting it', async () => {
    const c = new ApiClient(srv.url);
    const r = await c.post('/api/user/register', { username: 'thirteen_char', password: 'Quiet-Harbor-45', password2: 'Quiet-Harbor-45' });
    expect(r.body).toEqual({ success: false, message: expect.stringMatching(/^Username must be at most 12 characters/) });
  });
});
