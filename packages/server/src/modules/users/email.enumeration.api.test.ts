import { startFakeSmtp, type FakeSmtp } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/**
 * Account enumeration (issue 10): the reset and verification endpoints answer a known and an
 * unknown address alike; only the mailbox learns the difference.
 */
describe.each(testDbKinds())('email endpoints do not reveal accounts on %s', (kind) => {
  let srv: TestServer;
  let smtp: FakeSmtp;
  const anon = () => new ApiClient(srv.url);

  beforeAll(async () => {
    smtp = await startFakeSmtp({ users: { 'mailer@example.com': 'smtp-pass' } });
    srv = await startTestServer({ kind });
    const root = await rootClient(srv.url);
    const settings = { SMTPServer: '127.0.0.1', SMTPPort: String(smtp.port), SMTPAccount: 'mailer@example.com', SMTPToken: 'smtp-pass', SMTPFrom: 'noreply@example.com', ServerAddress: 'https://gate.example.com' };
    for (const [key, value] of Object.entries(settings)) expect((await root.put('/api/option/', { key, value })).body.success).toBe(true);
    const known = await newUser(srv.url, 'known');
    await srv.ctx.users.update(known.userId!, { email: 'known@example.com' });
  });
  afterAll(async () => {
    await srv?.close();
    await smtp?.close();
  });

  /** Mail goes out after the answer: give a (wrong) mail to the unknown address time to arrive. */
  const settle = () => new Promise((r) => setTimeout(r, 300));

  it('answers a password reset the same for known and unknown emails; only the known one gets a link', async () => {
    const before = smtp.messages.length;
    const known = await anon().get('/api/reset_password?email=known%40example.com&turnstile=');
    const unknown = await anon().get('/api/reset_password?email=nobody%40example.com&turnstile=');
    expect(unknown.body).toEqual(known.body);
    expect(known.body.success).toBe(true);
    const mail = await smtp.waitFor((m) => m.to.includes('known@example.com') && m.subject.includes('密码重置'));
    expect(mail.text).toMatch(/\/user\/reset\?email=known%40example\.com&token=[0-9a-f]{32}/);
    await settle();
    const sent = smtp.messages.slice(before);
    expect(sent.some((m) => m.to.includes('nobody@example.com'))).toBe(false);
  });

  it('answers a verification request the same for a taken and a free email; only the free one gets a code', async () => {
    const before = smtp.messages.length;
    const taken = await anon().get('/api/verification?email=known%40example.com&turnstile=');
    const free = await anon().get('/api/verification?email=fresh%40example.com&turnstile=');
    expect(taken.body).toEqual(free.body);
    expect(free.body.success).toBe(true);
    const code = await smtp.waitFor((m) => m.to.includes('fresh@example.com'));
    expect(code.html).toMatch(/<strong>[0-9a-f]{6}<\/strong>/);
    // The owner of the taken address is told someone tried to register it, and gets no code.
    const notice = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && m.to.includes('known@example.com'));
    expect(notice.html).toMatch(/already has an account/);
    expect(notice.html).not.toMatch(/<strong>[0-9a-f]{6}<\/strong>/);
  });

  it('keeps the clear messages for malformed emails and the domain whitelist', async () => {
    const root = await rootClient(srv.url);
    expect((await anon().get('/api/reset_password?email=not-an-email')).body.message).toMatch(/Invalid email/);
    expect((await anon().get('/api/verification?email=not-an-email')).body.message).toMatch(/Invalid email/);
    await root.put('/api/option/', { key: 'EmailDomainWhitelist', value: 'example.com' });
    await root.put('/api/option/', { key: 'EmailDomainRestrictionEnabled', value: 'true' });
    expect((await anon().get('/api/verification?email=x%40other.org')).body.message).toMatch(/restricts email domains/);
    await root.put('/api/option/', { key: 'EmailDomainRestrictionEnabled', value: 'false' });
  });
});
