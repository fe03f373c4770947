import { startFakeOAuth, startFakeWeChatServer, telegramLoginPayload, type FakeOAuth, type FakeWeChatServer } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient, type ApiResult } from '../test-support/api-client.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

const BOT_TOKEN = '424242:fixation-bot-token';

/**
 * Session fixation: whatever session cookie a browser holds when a sign-in completes (one an
 * attacker planted, or the browser's own older one), the sign-in answers a new session id and the
 * old one stops working — for every way of signing in.
 */
describe.each(testDbKinds())('a new session id at every sign-in on %s', (kind) => {
  let srv: TestServer;
  let wechat: FakeWeChatServer;
  let oauth: FakeOAuth;
  let planted: ApiClient;

  beforeAll(async () => {
    wechat = await startFakeWeChatServer({ token: 'wx-fixation-token' });
    oauth = await startFakeOAuth({ clientId: 'fx-client', clientSecret: 'fx-secret', requirePkce: false });
    srv = await startTestServer({ kind, env: { OAUTH_TIMEOUT: '2' } });
    const root = await rootClient(srv.url);
    for (const [key, value] of Object.entries({
      OutboundAllowedRanges: '127.0.0.1/32',
      WeChatServerAddress: wechat.url, WeChatServerToken: 'wx-fixation-token', WeChatAuthEnabled: 'true',
      TelegramBotName: 'fx_bot', TelegramBotToken: BOT_TOKEN, TelegramOAuthEnabled: 'true',
      GitHubOAuthEndpoint: oauth.url, GitHubApiEndpoint: oauth.url, GitHubClientId: 'fx-client', GitHubClientSecret: 'fx-secret', GitHubOAuthEnabled: 'true',
    })) expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    // The attacker's own account: its session cookie is what gets planted in the victim's browser.
    planted = await newUser(srv.url, 'attacker1');
  });
  afterAll(async () => {
    await srv?.close();
    await wechat?.close();
    await oauth?.close();
  });

  /** A browser that holds the attacker's (valid) session cookie. */
  const victimBrowser = (): ApiClient => {
    const b = new ApiClient(srv.url);
    b.cookie = planted.cookie;
    b.userId = planted.userId;
    return b;
  };

  const expectFreshSession = async (b: ApiClient, r: ApiResult, plantedCookie: string, username: RegExp | string) => {
    expect(r.body.success, r.body.message).toBe(true);
    expect(r.headers.getSetCookie().some((c) => /^session=[^;]+;.*HttpOnly/i.test(c))).toBe(true);
    expect(b.cookie).not.toBe(plantedCookie);
    b.userId = r.body.data.id;
    expect((await b.get('/api/user/self')).body.data.username).toMatch(username);
    // The planted session is over: the attacker cannot ride the victim's sign-in.
    const attacker = new ApiClient(srv.url);
    attacker.cookie = plantedCookie;
    attacker.userId = planted.userId;
    expect((await attacker.get('/api/user/self')).status).toBe(401);
  };

  it('password sign-in', async () => {
    await newUser(srv.url, 'victimpw');
    const b = victimBrowser();
    const before = b.cookie;
    await expectFreshSession(b, await b.login('victimpw', 'password123'), before, 'victimpw');
    planted = await newUser(srv.url, 'attacker2');
  });

  it('WeChat sign-in', async () => {
    const b = victimBrowser();
    const before = b.cookie;
    const r = await b.get(`/api/oauth/wechat?code=${wechat.issueCode('openid-fixation')}`);
    await expectFreshSession(b, r, before, /^wechat_\d+$/);
    planted = await newUser(srv.url, 'attacker3');
  });

  it('Telegram sign-in', async () => {
    const owner = await newUser(srv.url, 'tgvictim');
    const tg = { id: 919191, first_name: 'Victim', username: 'victim_tg' };
    const t = Math.floor(Date.now() / 1000);
    expect((await owner.get(`/api/oauth/telegram/bind?${new URLSearchParams(telegramLoginPayload(BOT_TOKEN, tg, { authDate: t })).toString()}`)).body.success).toBe(true);
    const b = victimBrowser();
    const before = b.cookie;
    // A payload of its own, signed a second apart: the bind's is spent (each is accepted once).
    const r = await b.get(`/api/oauth/telegram/login?${new URLSearchParams(telegramLoginPayload(BOT_TOKEN, tg, { authDate: t - 1 })).toString()}`);
    await expectFreshSession(b, r, before, 'tgvictim');
    planted = await newUser(srv.url, 'attacker4');
  });

  it('GitHub (OAuth redirect) sign-in', async () => {
    oauth.setIdentity({ id: 7331, login: 'fixated', name: 'Fixated', email: 'fixated@example.com' });
    const b = new ApiClient(srv.url);
    const start = await b.get('/api/oauth/authorize?type=github');
    expect(start.body.success).toBe(true);
    const back = new URL((await fetch(start.body.data as string, { redirect: 'manual' })).headers.get('location')!);
    // The attacker's cookie lands in the browser while it is at the provider.
    b.cookie = planted.cookie;
    b.userId = planted.userId;
    const r = await b.get(`/api/oauth/github?code=${back.searchParams.get('code')}&state=${back.searchParams.get('state')}`);
    await expectFreshSession(b, r, planted.cookie, /^github_\d+$/);
    // A sign-in, not a bind: the identity did not go to the account whose cookie was planted.
    const attacker = await srv.ctx.db.db.selectFrom('users').select('github_id').where('id', '=', planted.userId!).executeTakeFirstOrThrow();
    expect(attacker.github_id ?? '').toBe('');
  });
});

describe('the session cookie behind a proxy', () => {
  it('is Secure only when a trusted proxy says the request came over https; HSTS likewise', async () => {
    // No TRUSTED_PROXIES: X-Forwarded-Proto from the peer is not believed.
    const srv = await startTestServer();
    try {
      await newUser(srv.url, 'proxied1');
      const r = await fetch(`${srv.url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ username: 'proxied1', password: 'password123' }),
      });
      const cookie = r.headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).not.toMatch(/Secure/);
      expect(r.headers.get('strict-transport-security')).toBeNull();
    } finally {
      await srv.close();
    }
    const trusted = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
    try {
      await newUser(trusted.url, 'proxied2');
      const r = await fetch(`${trusted.url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ username: 'proxied2', password: 'password123' }),
      });
      expect(r.headers.get('set-cookie')).toMatch(/; Secure/);
      expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000');
    } finally {
      await trusted.close();
    }
  });
});
