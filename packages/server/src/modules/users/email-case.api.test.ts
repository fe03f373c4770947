import { startFakeSmtp, type FakeSmtp } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/**
 * Issue 29: one mailbox, one account. `KNOWN@Example.com` is the address `known@example.com`
 * already holds for sign-in, registration, binding and password reset, on every database.
 */
describe.each(testDbKinds())('email addresses compared ignoring case on %s', (kind) => {
  let srv: TestServer;
  let smtp: FakeSmtp;
  let root: ApiClient;

  beforeAll(async () => {
    smtp = await startFakeSmtp({ users: { 'mailer@example.com': 'smtp-pass' } });
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    for (const [key, value] of Object.entries({ SMTPServer: '127.0.0.1', SMTPPort: String(smtp.port), SMTPAccount: 'mailer@example.com', SMTPToken: 'smtp-pass', SMTPFrom: 'noreply@example.com', ServerAddress: 'https://gate.example.com' })) {
      expect((await root.put('/api/option/', { key, value })).body.success).toBe(true);
    }
  });
  afterAll(async () => {
    await srv?.close();
    await smtp?.close();
  });

  /** A user holding `email` as typed here. */
  const holder = async (name: string, email: string) => {
    const u = await newUser(srv.url, name);
    expect((await root.put('/api/user/', { id: u.userId, email })).body.success).toBe(true);
    return u;
  };

  it('signs in by email in any case', async () => {
    const u = await holder('signin', 'signin@example.com');
    const r = await new ApiClient(srv.url).login('SignIn@EXAMPLE.com', 'password123');
    expect(r.body).toMatchObject({ success: true, data: { id: u.userId, username: 'signin' } });
    // Nor can an admin give the address to a second account, in any spelling; its owner may re-case it.
    const other = await newUser(srv.url, 'signin2');
    expect((await root.put('/api/user/', { id: other.userId, email: 'SIGNIN@example.com' })).body).toEqual({ success: false, message: 'Email already in use' });
    expect((await root.put('/api/user/', { id: u.userId, email: 'SignIn@example.com' })).body.success).toBe(true);
  });

  it('mails a notice, not a code, to another spelling of a taken address, and refuses it at sign-up', async () => {
    await holder('taken', 'taken@example.com');
    await root.put('/api/option/', { key: 'EmailVerificationEnabled', value: 'true' });
    try {
      const anon = new ApiClient(srv.url);
      expect((await anon.get('/api/verification?email=TAKEN%40Example.com')).body).toEqual({ success: true, message: '' });
      const mail = await smtp.waitFor((m) => m.to.some((to) => to.toLowerCase() === 'taken@example.com'));
      expect(mail.html).toMatch(/already has an account/);
      expect(mail.html).not.toMatch(/<strong>[0-9a-f]{6}<\/strong>/);
      // Even with a valid code for that spelling (put there as a mail would have), the address stays the other account's.
      await srv.ctx.codes.put('email', 'TAKEN@Example.com', 'abc123', 60_000);
      const reg = await anon.post('/api/user/register', { username: 'second', password: 'password123', email: 'TAKEN@Example.com', verification_code: 'abc123' });
      expect(reg.body).toEqual({ success: false, message: 'Email already in use' });
      expect(await srv.ctx.db.db.selectFrom('users').select('id').where('username', '=', 'second').execute()).toEqual([]);
    } finally {
      await root.put('/api/option/', { key: 'EmailVerificationEnabled', value: 'false' });
    }
  });

  it('refuses to bind another spelling of a taken address, and lets the owner re-case their own', async () => {
    const owner = await holder('bindowner', 'bind@example.com');
    const other = await newUser(srv.url, 'bindother');
    await srv.ctx.codes.put('email', 'BIND@EXAMPLE.COM', 'c0ffee', 60_000);
    expect((await other.get('/api/oauth/email/bind?email=BIND%40EXAMPLE.COM&code=c0ffee')).body).toEqual({ success: false, message: 'Email already in use' });
    expect((await other.get('/api/user/self')).body.data.email).toBe('');
    await srv.ctx.codes.put('email', 'Bind@Example.com', 'c0ffee', 60_000);
    expect((await owner.get('/api/oauth/email/bind?email=Bind%40Example.com&code=c0ffee')).body).toEqual({ success: true, message: '' });
    expect((await owner.get('/api/user/self')).body.data.email).toBe('Bind@Example.com');
  });

  it('mails a reset asked in another spelling to the address the account holds, and the link works', async () => {
    await holder('resetter', 'Reset.Me@example.com');
    const anon = new ApiClient(srv.url);
    expect((await anon.get('/api/reset_password?email=RESET.ME%40EXAMPLE.COM')).body).toEqual({ success: true, message: '' });
    const mail = await smtp.waitFor((m) => m.to.some((to) => to.toLowerCase() === 'reset.me@example.com'));
    // The link names the address as the account holds it: the code is kept under that spelling.
    const link = new URL(/https:\/\/gate\.example\.com\/user\/reset\?email=[^&\s"<]+&token=[0-9a-f]{32}/.exec(mail.text)![0]);
    expect(link.searchParams.get('email')).toBe('Reset.Me@example.com');
    const r = await anon.post('/api/user/reset', { email: link.searchParams.get('email'), token: link.searchParams.get('token') });
    expect(r.body.success).toBe(true);
    expect((await new ApiClient(srv.url).login('resetter', r.body.data as string)).body.success).toBe(true);
  });
});
