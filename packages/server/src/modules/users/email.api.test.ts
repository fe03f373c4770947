import { startFakeSmtp, type FakeSmtp } from '@modelgate/testkit';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

describe('email verification and password reset over SMTP', () => {
  let srv: TestServer;
  let smtp: FakeSmtp;
  let root: ApiClient;

  beforeAll(async () => {
    smtp = await startFakeSmtp({ users: { 'mailer@example.com': 'smtp-pass' } });
    srv = await startTestServer();
    root = await rootClient(srv.url);
  });
  afterAll(async () => {
    await srv?.close();
    await smtp?.close();
  });

  const configureSmtp = async () => {
    for (const [key, value] of Object.entries({ SMTPServer: '127.0.0.1', SMTPPort: String(smtp.port), SMTPAccount: 'mailer@example.com', SMTPToken: 'smtp-pass', SMTPFrom: 'noreply@example.com', ServerAddress: 'https://gate.example.com' })) {
      expect((await root.put('/api/option/', { key, value })).body.success).toBe(true);
    }
  };

  it('says clearly when SMTP is not configured', async () => {
    const r = await new ApiClient(srv.url).get('/api/verification?email=a@example.com&turnstile=');
    expect(r.body).toMatchObject({ success: false, message: expect.stringMatching(/not configured SMTP/) });
  });

  it('mails a code that lets the user register with email verification on', async () => {
    await configureSmtp();
    await root.put('/api/option/', { key: 'EmailVerificationEnabled', value: 'true' });
    const anon = new ApiClient(srv.url);
    expect((await anon.get('/api/verification?email=new%40example.com&turnstile=')).body.success).toBe(true);
    const mail = await smtp.waitFor((m) => m.to.includes('new@example.com'));
    expect(mail.user).toBe('mailer@example.com');
    expect(mail.subject).toContain('邮箱验证');
    const code = /<strong>([0-9a-f]{6})<\/strong>/.exec(mail.html)![1]!;
    expect((await anon.post('/api/user/register', { username: 'mailuser', password: 'password123', email: 'new@example.com', verification_code: 'ffffff' })).body.success).toBe(false);
    expect((await anon.post('/api/user/register', { username: 'mailuser', password: 'password123', email: 'new@example.com', verification_code: code })).body.success).toBe(true);
    // A code works once.
    expect((await anon.post('/api/user/register', { username: 'mailuser2', password: 'password123', email: 'new@example.com', verification_code: code })).body.success).toBe(false);
    // A taken address answers like a free one (no account enumeration) and its owner gets a notice, not a code.
    expect((await anon.get('/api/verification?email=new%40example.com')).body).toEqual({ success: true, message: '' });
    expect((await smtp.waitFor((m) => m !== mail && m.to.includes('new@example.com'))).html).toMatch(/already has an account/);
    await root.put('/api/option/', { key: 'EmailVerificationEnabled', value: 'false' });
  });

  it('applies the domain whitelist and the alias rule', async () => {
    await root.put('/api/option/', { key: 'EmailDomainWhitelist', value: 'example.com' });
    await root.put('/api/option/', { key: 'EmailDomainRestrictionEnabled', value: 'true' });
    await root.put('/api/option/', { key: 'EmailAliasRestrictionEnabled', value: 'true' });
    const anon = new ApiClient(srv.url);
    expect((await anon.get('/api/verification?email=x%40other.org')).body.message).toMatch(/restricts email domains/);
    expect((await anon.get('/api/verification?email=a%2Bb%40example.com')).body.message).toMatch(/aliases/);
    expect((await anon.get('/api/verification?email=not-an-email')).body.message).toMatch(/Invalid email/);
    await root.put('/api/option/', { key: 'EmailDomainRestrictionEnabled', value: 'false' });
    await root.put('/api/option/', { key: 'EmailAliasRestrictionEnabled', value: 'false' });
  });

  it('mails a reset link whose confirmation returns a new working password', async () => {
    await configureSmtp();
    const u = await newUser(srv.url, 'forgetful');
    await srv.ctx.users.update(u.userId!, { email: 'forgetful@example.com' });
    const anon = new ApiClient(srv.url);
    expect((await anon.get('/api/reset_password?email=nobody%40example.com')).body).toEqual({ success: true, message: '' });
    expect((await anon.get('/api/reset_password?email=forgetful%40example.com&turnstile=')).body.success).toBe(true);
    const mail = await smtp.waitFor((m) => m.to.includes('forgetful@example.com'));
    const link = /https:\/\/gate\.example\.com\/user\/reset\?email=[^&\s"<]+&token=[0-9a-f]{32}/.exec(mail.text)![0];
    const url = new URL(link);
    const email = url.searchParams.get('email')!;
    const token = url.searchParams.get('token')!;
    expect((await anon.post('/api/user/reset', { email, token: 'f'.repeat(32) })).body.message).toMatch(/invalid or expired/);
    const r = await anon.post('/api/user/reset', { email, token });
    expect(r.body.success).toBe(true);
    // The reset ends the sessions opened with the old password.
    expect((await u.get('/api/user/self')).status).toBe(401);
    expect(r.body.data).toMatch(/^[0-9a-zA-Z]{12}$/);
    expect((await new ApiClient(srv.url).login('forgetful', r.body.data)).body.success).toBe(true);
    expect((await new ApiClient(srv.url).login('forgetful', 'password123')).body.success).toBe(false);
    expect((await anon.post('/api/user/reset', { email, token })).body.success).toBe(false);
  });
});

describe('Turnstile on sign-in routes', () => {
  let srv: TestServer;
  let verifier: http.Server;
  const seen: string[] = [];

  beforeAll(async () => {
    // Cloudflare's siteverify, faked on loopback: only the token "good-token" passes.
    verifier = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        seen.push(`${form.get('secret')}:${form.get('response')}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ success: form.get('response') === 'good-token' && form.get('secret') === 'ts-secret' }));
      });
    });
    await new Promise<void>((r) => verifier.listen(0, '127.0.0.1', r));
    const port = (verifier.address() as AddressInfo).port;
    srv = await startTestServer({ env: { TURNSTILE_VERIFY_URL: `http://127.0.0.1:${port}/siteverify` } });
    const root = await rootClient(srv.url);
    await root.put('/api/option/', { key: 'TurnstileSiteKey', value: 'ts-site' });
    await root.put('/api/option/', { key: 'TurnstileSecretKey', value: 'ts-secret' });
    expect((await root.put('/api/option/', { key: 'TurnstileCheckEnabled', value: 'true' })).body.success).toBe(true);
  });
  afterAll(async () => {
    await srv?.close();
    await new Promise((r) => verifier?.close(r));
  });

  it('requires a valid token for login and register', async () => {
    const c = new ApiClient(srv.url);
    expect((await c.post('/api/user/login?turnstile=', { username: 'root', password: '123456' })).body.message).toMatch(/Turnstile token empty/);
    expect((await c.post('/api/user/login?turnstile=bad-token', { username: 'root', password: '123456' })).body.message).toMatch(/Turnstile verification failed/);
    expect((await c.post('/api/user/login?turnstile=good-token', { username: 'root', password: '123456' })).body.success).toBe(true);
    expect((await c.post('/api/user/register?turnstile=good-token', { username: 'tsuser', password: 'password123' })).body.success).toBe(true);
    expect(seen).toContain('ts-secret:good-token');
    expect((await new ApiClient(srv.url).get('/api/status')).body.data).toMatchObject({ turnstile_check: true, turnstile_site_key: 'ts-site' });
  });
});
