import { startFakeSmtp, startFakeWeChatServer, telegramLoginPayload, type FakeSmtp, type FakeWeChatServer } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const BOT_TOKEN = '123456:fake-bot-token';
const query = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe.each(testDbKinds())('WeChat, Telegram and email bindings on %s', (kind) => {
  let srv: TestServer;
  let wechat: FakeWeChatServer;
  let smtp: FakeSmtp;
  let root: ApiClient;

  const setOption = async (key: string, value: string) => {
    const r = await root.put('/api/option/', { key, value });
    expect(r.body, key).toMatchObject({ success: true });
  };
  const userCount = async () => Number((await srv.ctx.db.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    wechat = await startFakeWeChatServer({ token: 'wx-server-token' });
    smtp = await startFakeSmtp({ users: { 'mailer@example.com': 'smtp-pass' } });
    srv = await startTestServer({ kind, env: { OAUTH_TIMEOUT: '0.5' } });
    root = await rootClient(srv.url);
    for (const [key, value] of Object.entries({
      OutboundAllowedRanges: '127.0.0.1/32',
      WeChatServerAddress: wechat.url, WeChatServerToken: 'wx-server-token', WeChatAuthEnabled: 'true',
      TelegramBotName: 'mg_bot', TelegramBotToken: BOT_TOKEN, TelegramOAuthEnabled: 'true',
      SMTPServer: '127.0.0.1', SMTPPort: String(smtp.port), SMTPAccount: 'mailer@example.com', SMTPToken: 'smtp-pass', SMTPFrom: 'noreply@example.com',
    })) await setOption(key, value);
  });
  afterAll(async () => {
    await srv?.close();
    await wechat?.close();
    await smtp?.close();
  });

  it('signs up and signs in with a WeChat code, and refuses a code the server does not know', async () => {
    const browser = new ApiClient(srv.url);
    const first = await browser.get(`/api/oauth/wechat?code=${wechat.issueCode('openid-w1')}`);
    expect(first.body).toMatchObject({ success: true, data: { username: expect.stringMatching(/^wechat_\d+$/) } });
    browser.userId = first.body.data.id;
    expect((await browser.get('/api/user/self')).body.data.wechat_id).toBe('openid-w1');
    const again = await new ApiClient(srv.url).get(`/api/oauth/wechat?code=${wechat.issueCode('openid-w1')}`);
    expect(again.body.data.id).toBe(first.body.data.id);

    const before = await userCount();
    const used = await new ApiClient(srv.url).get('/api/oauth/wechat?code=999999');
    expect(used.body).toMatchObject({ success: false, message: expect.stringMatching(/^The provider rejected the authorization code/) });
    expect((await new ApiClient(srv.url).get('/api/oauth/wechat?code=')).body).toEqual({ success: false, message: 'The authorization code is missing' });
    expect(await userCount()).toBe(before);
  });

  it('binds WeChat for the signed-in user, refusing an openid bound elsewhere', async () => {
    const bob = await newUser(srv.url, 'wxbob');
    expect((await bob.get(`/api/oauth/wechat/bind?code=${wechat.issueCode('openid-bob')}`)).body).toEqual({ success: true, message: '' });
    expect((await bob.get('/api/user/self')).body.data.wechat_id).toBe('openid-bob');
    const eve = await newUser(srv.url, 'wxeve');
    const takeover = await eve.get(`/api/oauth/wechat/bind?code=${wechat.issueCode('openid-bob')}`);
    expect(takeover.body).toEqual({ success: false, message: 'This account is already bound to another user' });
    expect((await eve.get('/api/user/self')).body.data.wechat_id).toBe('');
    expect((await new ApiClient(srv.url).get(`/api/oauth/wechat/bind?code=${wechat.issueCode('x')}`)).status).toBe(401);
  });

  it('times out on a slow WeChat server', async () => {
    wechat.setDelay(2000);
    try {
      const r = await new ApiClient(srv.url).get(`/api/oauth/wechat?code=${wechat.issueCode('openid-slow')}`);
      expect(r.body).toMatchObject({ success: false, message: expect.stringMatching(/did not answer in time/) });
    } finally {
      wechat.setDelay(0);
    }
  });

  it('binds Telegram and then signs in with it; refuses a bad hash, a stale date and an unbound account', async () => {
    const carol = await newUser(srv.url, 'tgcarol');
    const tg = { id: 777001, first_name: 'Carol', username: 'carol_tg' };
    // Each payload is accepted once (telegram.api.test.ts): every use here brings its own, signed a second apart.
    const t = Math.floor(Date.now() / 1000);
    expect((await carol.get(`/api/oauth/telegram/bind?${query(telegramLoginPayload(BOT_TOKEN, tg, { authDate: t }))}`)).body).toEqual({ success: true, message: '' });
    expect((await carol.get('/api/user/self')).body.data.telegram_id).toBe('777001');

    const login = await new ApiClient(srv.url).get(`/api/oauth/telegram/login?${query({ ...telegramLoginPayload(BOT_TOKEN, tg, { authDate: t - 1 }), lang: 'en' })}`);
    expect(login.body).toMatchObject({ success: true, data: { id: carol.userId } });

    const anon = new ApiClient(srv.url);
    const forged = await anon.get(`/api/oauth/telegram/login?${query(telegramLoginPayload(BOT_TOKEN, tg, { forgeWith: '999:other-bot' }))}`);
    expect(forged.body).toEqual({ success: false, message: 'The Telegram login data failed verification' });
    const tampered = await anon.get(`/api/oauth/telegram/login?${query(telegramLoginPayload(BOT_TOKEN, { id: 5 }, { tamper: { id: 777001 } }))}`);
    expect(tampered.body.message).toBe('The Telegram login data failed verification');
    const stale = await anon.get(`/api/oauth/telegram/login?${query(telegramLoginPayload(BOT_TOKEN, tg, { authDate: Math.floor(Date.now() / 1000) - 601 }))}`);
    expect(stale.body).toEqual({ success: false, message: 'The Telegram login data is more than 10 minutes old; please sign in again' });
    const before = await userCount();
    const unbound = await anon.get(`/api/oauth/telegram/login?${query(telegramLoginPayload(BOT_TOKEN, { id: 424242 }))}`);
    expect(unbound.body.message).toMatch(/not bound to any user/);
    expect(await userCount()).toBe(before);

    const dave = await newUser(srv.url, 'tgdave');
    expect((await dave.get(`/api/oauth/telegram/bind?${query(telegramLoginPayload(BOT_TOKEN, tg, { authDate: t - 2 }))}`)).body.message).toBe('This account is already bound to another user');
  });

  it('binds an email with the code mailed to it; a wrong code or a taken address binds nothing', async () => {
    const erin = await newUser(srv.url, 'mailerin');
    expect((await erin.get('/api/oauth/email/bind?email=&code=')).body).toEqual({ success: false, message: 'Please enter the email address and the verification code' });
    expect((await erin.get('/api/verification?email=erin%40example.com&turnstile=')).body.success).toBe(true);
    const mail = await smtp.waitFor((m) => m.to.includes('erin@example.com'));
    const code = /<strong>([0-9a-f]{6})<\/strong>/.exec(mail.html)![1]!;
    expect((await erin.get('/api/oauth/email/bind?email=erin%40example.com&code=000000')).body.message).toBe('Verification code incorrect or expired');
    expect((await erin.get(`/api/oauth/email/bind?email=erin%40example.com&code=${code}`)).body).toEqual({ success: true, message: '' });
    expect((await erin.get('/api/user/self')).body.data.email).toBe('erin@example.com');
    // The code is spent.
    expect((await erin.get(`/api/oauth/email/bind?email=erin%40example.com&code=${code}`)).body.success).toBe(false);

    // Someone else asking for erin's address gets no code, so cannot bind it.
    const frank = await newUser(srv.url, 'mailfrank');
    expect((await frank.get('/api/verification?email=erin%40example.com&turnstile=')).body.success).toBe(true);
    expect((await frank.get('/api/oauth/email/bind?email=erin%40example.com&code=000000')).body.message).toBe('Verification code incorrect or expired');
    expect((await frank.get('/api/user/self')).body.data.email).toBe('');
  });
});
