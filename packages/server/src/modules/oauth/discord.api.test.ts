import { startFakeOAuth, type FakeIdentity, type FakeOAuth } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient, type ApiResult } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/** Discord's side of sign-in (the shared behaviour of every redirect provider is in oauth.redirect.api.test.ts). */
describe.each(testDbKinds())('Discord sign-in and binding on %s', (kind) => {
  let srv: TestServer;
  let fake: FakeOAuth;
  let root: ApiClient;
  let n = 0;
  const person = (over: Partial<FakeIdentity> = {}): FakeIdentity => {
    n += 1;
    return { id: `80351110224678${9000 + n}`, login: `disc${n}`, name: `Disc Person ${n}`, email: `disc${n}@example.com`, ...over };
  };

  const setOption = async (key: string, value: string) => expect((await root.put('/api/option/', { key, value })).body, key).toMatchObject({ success: true });
  const authorize = async (client: ApiClient): Promise<{ code: string; state: string; url: URL }> => {
    const r = await client.get('/api/oauth/authorize?type=discord');
    expect(r.body.success, r.body.message).toBe(true);
    const url = new URL(r.body.data as string);
    const res = await fetch(url, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')!, url };
  };
  const callback = (client: ApiClient, p: { code: string; state: string }): Promise<ApiResult> =>
    client.get(`/api/oauth/discord?code=${encodeURIComponent(p.code)}&state=${encodeURIComponent(p.state)}`);
  const signIn = async (client: ApiClient, who: FakeIdentity): Promise<ApiResult> => {
    fake.setIdentity(who);
    const r = await callback(client, await authorize(client));
    if (r.body.success && r.body.data) client.userId = r.body.data.id;
    return r;
  };

  beforeAll(async () => {
    fake = await startFakeOAuth({ clientId: 'discord-app', clientSecret: 'discord-secret' });
    srv = await startTestServer({ kind, env: { OAUTH_TIMEOUT: '1' } });
    root = await rootClient(srv.url);
    await setOption('OutboundAllowedRanges', '127.0.0.1/32');
    const refused = await root.put('/api/option/', { key: 'DiscordOAuthEnabled', value: 'true' });
    expect(refused.body.message).toBe('Cannot enable Discord sign-in: fill in the Discord Client Id and Client Secret first');
    for (const [key, value] of Object.entries({ DiscordOAuthEndpoint: fake.url, DiscordClientId: 'discord-app', DiscordClientSecret: 'discord-secret', DiscordOAuthEnabled: 'true' })) {
      await setOption(key, value);
    }
  });
  afterAll(async () => {
    await srv?.close();
    await fake?.close();
  });

  it('offers Discord in the status and sends the browser to Discord’s authorize page with the identify and email scopes', async () => {
    expect((await new ApiClient(srv.url).get('/api/status')).body.data).toMatchObject({ discord_oauth: true, discord_client_id: 'discord-app' });
    const r = await new ApiClient(srv.url).get('/api/oauth/authorize?type=discord');
    const url = new URL(r.body.data as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ response_type: 'code', client_id: 'discord-app', scope: 'identify email', redirect_uri: `${srv.url}/oauth/discord` });
  });

  it('signs up a new user from /users/@me (snowflake id, global name), exchanging the code with a form POST', async () => {
    const who = person();
    const browser = new ApiClient(srv.url);
    const r = await signIn(browser, who);
    expect(r.body).toMatchObject({ success: true, data: { username: expect.stringMatching(/^discord_\d+$/), display_name: who.name } });
    expect((await browser.get('/api/user/self')).body.data).toMatchObject({ discord_id: who.id, email: who.email });
    const token = fake.requests.filter((q) => q.path === '/api/oauth2/token').at(-1)!;
    expect(token.method).toBe('POST');
    expect(token.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(token.fields).toMatchObject({ grant_type: 'authorization_code', client_id: 'discord-app', client_secret: 'discord-secret', redirect_uri: `${srv.url}/oauth/discord` });
    expect(fake.requests.some((q) => q.path === '/api/users/@me' && q.headers.authorization?.toString().startsWith('Bearer '))).toBe(true);
    // The same Discord account later: the same user.
    expect((await signIn(new ApiClient(srv.url), who)).body.data.id).toBe(r.body.data.id);
  });

  it('uses the username when there is no global name, and no email Discord has not verified', async () => {
    const who = person({ name: undefined, emailVerified: false });
    const browser = new ApiClient(srv.url);
    const r = await signIn(browser, who);
    expect(r.body.data.display_name).toBe(who.login);
    expect((await browser.get('/api/user/self')).body.data).toMatchObject({ discord_id: who.id, email: '' });
  });

  it('binds to the signed-in user, refuses a Discord account bound to another user, and refuses another user’s state', async () => {
    const owner = new ApiClient(srv.url);
    const held = person();
    expect((await signIn(owner, held)).body.success).toBe(true);
    const carol = await newUser(srv.url, 'carol');
    const mine = person();
    expect((await signIn(carol, mine)).body).toEqual({ success: true, message: 'bind' });
    expect((await carol.get('/api/user/self')).body.data.discord_id).toBe(mine.id);
    const taken = await signIn(carol, held);
    expect(taken.body).toEqual({ success: false, message: 'This account is already bound to another user' });
    expect((await carol.get('/api/user/self')).body.data.discord_id).toBe(mine.id);

    // Mallory starts a bind for her account and hands the callback link to Carol: Carol's browser
    // holds neither the state's binding cookie nor is the state hers — refused, nothing bound.
    const mallory = await newUser(srv.url, 'mallory');
    fake.setIdentity(person());
    const lure = await authorize(mallory);
    const r = await callback(carol, lure);
    expect(r.status).toBe(403);
    expect((await carol.get('/api/user/self')).body.data.discord_id).toBe(mine.id);
    expect((await mallory.get('/api/user/self')).body.data.discord_id).toBe('');
  });

  it('removes a binding from personal settings, but never the only way into an account', async () => {
    // Made by Discord with no email: nothing else lets this person back in.
    const only = new ApiClient(srv.url);
    const lone = person({ email: undefined });
    expect((await signIn(only, lone)).body.success).toBe(true);
    only.lang = 'zh';
    expect((await only.del('/api/oauth/bind?type=discord')).body).toEqual({ success: false, message: '这是该账户唯一的登录方式，请先绑定邮箱或其他登录方式再解绑' });
    only.lang = 'en';
    expect((await only.get('/api/user/self')).body.data.discord_id).toBe(lone.id);

    const dave = await newUser(srv.url, 'dave');
    await srv.ctx.db.db.updateTable('users').set({ email: 'dave@example.com' }).where('id', '=', dave.userId!).execute();
    const his = person();
    expect((await signIn(dave, his)).body.message).toBe('bind');
    expect((await dave.del('/api/oauth/bind?type=discord')).body).toEqual({ success: true, message: '' });
    expect((await dave.get('/api/user/self')).body.data.discord_id).toBe('');
    // Unbound, the Discord account signs up anew instead of signing in to Dave.
    const again = await signIn(new ApiClient(srv.url), { ...his, email: undefined });
    expect(again.body.data.id).not.toBe(dave.userId);
    expect((await new ApiClient(srv.url).del('/api/oauth/bind?type=discord')).status).toBe(401);
    expect((await dave.del('/api/oauth/bind?type=twitter')).body.success).toBe(false);
  });
});
