import { serverMessage, type Lang } from '@modelgate/shared';
import { startFakeOAuth, startFakeSmtp, type FakeOAuth, type FakeSmtp } from '@modelgate/testkit';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../ledger/reconcile.js';
import { ApiClient, rootClient } from '../../test-support/api-client.js';
import { expectedCharge } from '../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/** Options the issue-35 audit found without a test: each one's effect as a caller sees it. */
describe.each(testDbKinds())('PasswordRegisterEnabled and Logo on %s', (kind) => {
  let srv: TestServer;
  let fake: FakeOAuth;
  let root: ApiClient;

  const setOption = async (key: string, value: string) => expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
  const userCount = async () => Number((await srv.ctx.db.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    fake = await startFakeOAuth({ clientId: 'mg-client', clientSecret: 'mg-secret', requirePkce: false });
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    await setOption('OutboundAllowedRanges', '127.0.0.1/32');
    for (const [key, value] of Object.entries({ GitHubOAuthEndpoint: fake.url, GitHubApiEndpoint: fake.url, GitHubClientId: 'mg-client', GitHubClientSecret: 'mg-secret', GitHubOAuthEnabled: 'true' })) {
      await setOption(key, value);
    }
  });
  afterAll(async () => {
    await srv?.close();
    await fake?.close();
  });

  it.each<Lang>(['zh', 'en'])('off: a password sign-up is refused with the spec\u2019s message (%s) and creates nothing', async (lang) => {
    await setOption('PasswordRegisterEnabled', 'false');
    const anon = new ApiClient(srv.url);
    anon.lang = lang;
    const before = await userCount();
    const r = await anon.post('/api/user/register', { username: `pw${lang}`, password: 'password123', password2: 'password123' });
    expect(r.body).toMatchObject({ success: false, message: serverMessage('PASSWORD_REGISTER_DISABLED', lang) });
    expect(r.body.message).toMatch(lang === 'zh' ? /管理员关闭了通过密码进行注册/ : /Password registration is turned off/);
    expect(await userCount()).toBe(before);
    // Password sign-in of an existing account is a different switch.
    expect((await new ApiClient(srv.url).login('root', '123456')).body.success).toBe(true);
  });

  it('off: a GitHub sign-up still creates the account; on again: password sign-up works', async () => {
    await setOption('PasswordRegisterEnabled', 'false');
    fake.setIdentity({ id: 7301, login: 'octo7301', name: 'Octo', email: 'octo7301@example.com' });
    const c = new ApiClient(srv.url);
    const authorize = await c.get('/api/oauth/authorize?type=github');
    expect(authorize.body.success, authorize.body.message).toBe(true);
    const back = new URL((await fetch(authorize.body.data as string, { redirect: 'manual' })).headers.get('location')!);
    const signIn = await c.get(`/api/oauth/github?code=${encodeURIComponent(back.searchParams.get('code')!)}&state=${encodeURIComponent(back.searchParams.get('state')!)}`);
    expect(signIn.body.success, signIn.body.message).toBe(true);
    const row = await srv.ctx.db.db.selectFrom('users').select(['id', 'username']).where('github_id', '=', 'octo7301').executeTakeFirstOrThrow();
    expect(signIn.body.data).toMatchObject({ id: row.id, username: row.username });

    await setOption('PasswordRegisterEnabled', 'true');
    const r = await new ApiClient(srv.url).post('/api/user/register', { username: 'pwback', password: 'password123', password2: 'password123' });
    expect(r.body).toMatchObject({ success: true });
  });

  it('Logo: /api/status carries the saved logo to anyone (empty by default)', async () => {
    expect((await new ApiClient(srv.url).get('/api/status')).body.data.logo).toBe('');
    await setOption('Logo', 'https://cdn.example.com/brand/logo.png');
    expect((await new ApiClient(srv.url).get('/api/status')).body.data.logo).toBe('https://cdn.example.com/brand/logo.png');
    await setOption('Logo', '');
    expect((await new ApiClient(srv.url).get('/api/status')).body.data.logo).toBe('');
  });
});

/**
 * A TCP listener that greets like an SMTP server and records the first bytes each client sends:
 * a client speaking implicit TLS opens with a TLS handshake record (0x16 0x03 …) before reading
 * the greeting; a plain SMTP client answers the greeting with EHLO.
 */
async function startFirstBytesProbe() {
  const first: Buffer[] = [];
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => {
      first.push(chunk);
      socket.destroy();
    });
    socket.write('220 probe ESMTP\r\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    first,
    async next(): Promise<Buffer> {
      const seen = first.length;
      for (let i = 0; i < 200 && first.length === seen; i++) await new Promise((r) => setTimeout(r, 25));
      if (first.length === seen) throw new Error('no client connected to the probe');
      return first[seen]!;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('SMTPSSLEnabled', () => {
  let srv: TestServer;
  let root: ApiClient;
  let smtp: FakeSmtp;
  let probe: Awaited<ReturnType<typeof startFirstBytesProbe>>;

  beforeAll(async () => {
    srv = await startTestServer();
    root = await rootClient(srv.url);
    smtp = await startFakeSmtp();
    probe = await startFirstBytesProbe();
  });
  afterAll(async () => {
    await srv?.close();
    await smtp?.close();
    await probe?.close();
  });

  const configure = async (port: number, ssl: boolean) => {
    for (const [key, value] of Object.entries({ SMTPServer: '127.0.0.1', SMTPPort: String(port), SMTPFrom: 'noreply@example.com', SMTPSSLEnabled: String(ssl) })) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
  };
  const askForCode = async (email: string) => expect((await new ApiClient(srv.url).get(`/api/verification?email=${encodeURIComponent(email)}`)).body.success).toBe(true);

  it('off (a port other than 465): plain SMTP, the mail is delivered', async () => {
    await configure(smtp.port, false);
    await askForCode('plain@example.com');
    const mail = await smtp.waitFor((m) => m.to.includes('plain@example.com'));
    expect(mail.html).toMatch(/<strong>[0-9a-f]{6}<\/strong>/);
    await configure(probe.port, false);
    await askForCode('plain2@example.com');
    expect((await probe.next()).subarray(0, 4).toString()).toMatch(/^(EHLO|HELO)/);
  });

  it('on: the mailer opens with a TLS handshake on the same port (implicit TLS), not with EHLO', async () => {
    await configure(probe.port, true);
    await askForCode('tls@example.com');
    const bytes = await probe.next();
    expect(bytes[0]).toBe(0x16); // TLS record type: handshake
    expect(bytes[1]).toBe(0x03); // TLS major version
    expect(bytes[5]).toBe(0x01); // handshake type: ClientHello
    // A plain-text server cannot complete it: nothing reaches a plain SMTP server with SSL on.
    await configure(smtp.port, true);
    smtp.reset();
    await askForCode('tls2@example.com');
    await expect(smtp.waitFor((m) => m.to.includes('tls2@example.com'), 1500)).rejects.toThrow();
  });
});

describe.each(testDbKinds())('LogConsumeEnabled on %s', (kind) => {
  let h: RelayHarness;
  const messages = [{ role: 'user' as const, content: 'count these words please' }];

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini' });
  });
  afterAll(() => h?.close());

  const charged = async (stream: boolean) => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    let usage = { prompt: 0, completion: 0 };
    if (stream) {
      const s = await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of s) if (chunk.usage) usage = { prompt: chunk.usage.prompt_tokens, completion: chunk.usage.completion_tokens };
    } else {
      const r = await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
      usage = { prompt: r.usage!.prompt_tokens, completion: r.usage!.completion_tokens };
    }
    const after = await balances(h, c);
    const cost = expectedCharge({ model: 'gpt-4o-mini' }, usage);
    expect(cost).toBeGreaterThan(0);
    return { c, cost, user: before.quota - after.quota, userUsed: after.userUsed - before.userUsed, token: before.remain - after.remain, tokenUsed: after.tokenUsed - before.tokenUsed, requests: after.requests - before.requests };
  };

  it.each([false, true])('off (stream %s): no consume row, the user and the token charged exactly, the ledger reconciles', async (stream) => {
    await h.root.put('/api/option/', { key: 'LogConsumeEnabled', value: 'false' });
    const r = await charged(stream);
    expect(r).toMatchObject({ user: r.cost, userUsed: r.cost, token: r.cost, tokenUsed: r.cost, requests: 1 });
    expect(await consumeLogs(h, r.c.userId)).toEqual([]);
    const rec = await reconcile(h.server.ctx.db.db);
    expect(rec.ok).toBe(true);
  });

  it('on (the default): the same call writes one consume row with the charged quota', async () => {
    await h.root.put('/api/option/', { key: 'LogConsumeEnabled', value: 'true' });
    const r = await charged(false);
    expect(r).toMatchObject({ user: r.cost, token: r.cost });
    const rows = await consumeLogs(h, r.c.userId);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.quota)).toBe(r.cost);
    expect((await reconcile(h.server.ctx.db.db)).ok).toBe(true);
  });
});
