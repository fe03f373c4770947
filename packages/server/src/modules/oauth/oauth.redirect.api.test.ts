import { startFakeOAuth, type FakeIdentity, type FakeOAuth } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient, type ApiResult } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

type Provider = 'github' | 'linuxdo' | 'oidc' | 'discord';
const PROVIDERS: Array<{ type: Provider; column: 'github_id' | 'linux_do_id' | 'oidc_id' | 'discord_id'; stored: (i: FakeIdentity) => string }> = [
  { type: 'github', column: 'github_id', stored: (i) => i.login },
  { type: 'linuxdo', column: 'linux_do_id', stored: (i) => String(i.id) },
  { type: 'oidc', column: 'oidc_id', stored: (i) => String(i.id) },
  { type: 'discord', column: 'discord_id', stored: (i) => String(i.id) },
];

let counter = 0;
const person = (tag: string): FakeIdentity => {
  counter += 1;
  return { id: 5000 + counter, login: `${tag}${counter}`, name: `Person ${tag} ${counter}`, email: `${tag}${counter}@example.com` };
};

describe.each(testDbKinds())('sign-in through GitHub, LinuxDO, OIDC and Discord on %s', (kind) => {
  let srv: TestServer;
  let fake: FakeOAuth;
  let root: ApiClient;

  const setOption = async (key: string, value: string) => {
    const r = await root.put('/api/option/', { key, value });
    expect(r.body, key).toMatchObject({ success: true });
  };

  /** The browser's part: ask for the authorize URL, let the fake approve, come back to the callback. */
  const authorize = async (client: ApiClient, type: Provider, aff = ''): Promise<{ code: string; state: string }> => {
    const r = await client.get(`/api/oauth/authorize?type=${type}${aff ? `&aff=${aff}` : ''}`);
    expect(r.body.success, r.body.message).toBe(true);
    const res = await fetch(r.body.data as string, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.pathname).toBe(`/oauth/${type}`);
    return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! };
  };
  const callback = (client: ApiClient, type: Provider, p: { code: string; state: string }): Promise<ApiResult> =>
    client.get(`/api/oauth/${type}?code=${encodeURIComponent(p.code)}&state=${encodeURIComponent(p.state)}`);
  const signIn = async (client: ApiClient, type: Provider, who: FakeIdentity, aff = ''): Promise<ApiResult> => {
    fake.setIdentity(who);
    const r = await callback(client, type, await authorize(client, type, aff));
    if (r.body.success && r.body.data) client.userId = r.body.data.id;
    return r;
  };
  const userCount = async () => Number((await srv.ctx.db.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    fake = await startFakeOAuth({ clientId: 'mg-client', clientSecret: 'mg-secret', requirePkce: false });
    srv = await startTestServer({ kind, env: { OAUTH_TIMEOUT: '0.5' } });
    root = await rootClient(srv.url);
    // The fake is on loopback, which outbound fetches may reach only when the operator allows it.
    await setOption('OutboundAllowedRanges', '127.0.0.1/32');
    for (const [key, value] of Object.entries({
      GitHubOAuthEndpoint: fake.url, GitHubApiEndpoint: fake.url, GitHubClientId: 'mg-client', GitHubClientSecret: 'mg-secret', GitHubOAuthEnabled: 'true',
      LinuxDOOAuthEndpoint: fake.url, LinuxDOClientId: 'mg-client', LinuxDOClientSecret: 'mg-secret', LinuxDOOAuthEnabled: 'true',
      OIDCWellKnown: fake.discoveryUrl, OIDCClientId: 'mg-client', OIDCClientSecret: 'mg-secret', OIDCEnabled: 'true',
      DiscordOAuthEndpoint: fake.url, DiscordClientId: 'mg-client', DiscordClientSecret: 'mg-secret', DiscordOAuthEnabled: 'true',
      QuotaForNewUser: '1000', QuotaForInviter: '300', QuotaForInvitee: '200',
    })) await setOption(key, value);
  });
  afterAll(async () => {
    await srv?.close();
    await fake?.close();
  });

  describe.each(PROVIDERS)('$type', ({ type, column, stored }) => {
    it('signs up a new user with the invite code of the state, gifts through the ledger, then signs the same user in', async () => {
      const inviter = await newUser(srv.url, `inv${type}`.slice(0, 12));
      const affCode = (await inviter.get('/api/user/aff')).body.data as string;
      const who = person(type.slice(0, 2));
      const browser = new ApiClient(srv.url);
      const first = await signIn(browser, type, who, affCode);
      expect(first.body).toMatchObject({ success: true, data: { username: expect.stringMatching(new RegExp(`^${type}_\\d+$`)), display_name: who.name } });
      const self = (await browser.get('/api/user/self')).body.data;
      expect(self).toMatchObject({ [column]: stored(who), email: who.email, quota: 1200, inviter_id: inviter.userId });
      expect((await inviter.get('/api/user/self')).body.data).toMatchObject({ aff_count: 1, aff_quota: 300 });

      // Later, from another browser: the same user, a new session.
      const again = new ApiClient(srv.url);
      const second = await signIn(again, type, who);
      expect(second.body.data.id).toBe(first.body.data.id);
      expect(again.cookie).not.toBe(browser.cookie);
      // OIDC proves the code with PKCE (the fake checks the verifier against the challenge).
      if (type === 'oidc') expect(fake.requests.some((r) => r.path === '/token' && r.fields.code_verifier)).toBe(true);
    });

    it('binds the identity to a signed-in user, and refuses one another user holds', async () => {
      const owner = new ApiClient(srv.url);
      const held = person(`h${type.slice(0, 1)}`);
      expect((await signIn(owner, type, held)).body.success).toBe(true);

      const alice = await newUser(srv.url, `al${type}`.slice(0, 12));
      const mine = person(`m${type.slice(0, 1)}`);
      expect((await signIn(alice, type, mine)).body).toEqual({ success: true, message: 'bind' });
      expect((await alice.get('/api/user/self')).body.data[column]).toBe(stored(mine));

      // Taking over the owner's identity: refused, and nobody's binding changes.
      const before = await userCount();
      alice.lang = 'zh';
      const takeover = await signIn(alice, type, held);
      expect(takeover.body).toEqual({ success: false, message: '该账户已绑定到其他用户' });
      alice.lang = 'en';
      expect((await alice.get('/api/user/self')).body.data[column]).toBe(stored(mine));
      expect(await userCount()).toBe(before);
    });

    it('refuses a replayed state and a state issued to another browser (403)', async () => {
      const browser = new ApiClient(srv.url);
      fake.setIdentity(person(`r${type.slice(0, 1)}`));
      const p = await authorize(browser, type);
      expect((await callback(browser, type, p)).body.success).toBe(true);
      const replay = await callback(browser, type, p);
      expect(replay.status).toBe(403);
      expect(replay.body).toEqual({ success: false, message: 'state is empty or not same' });

      // A state (and code) from the attacker's own browser, handed to a victim's browser.
      const attacker = new ApiClient(srv.url);
      const victim = new ApiClient(srv.url);
      await victim.get('/api/oauth/state');
      const stolen = await authorize(attacker, type);
      const before = await userCount();
      const foreign = await callback(victim, type, stolen);
      expect(foreign.status).toBe(403);
      expect(victim.cookie).toBe('');
      expect(await userCount()).toBe(before);
      // No binding cookie at all: the same refusal.
      expect((await callback(new ApiClient(srv.url), type, await authorize(attacker, type))).status).toBe(403);
    });

    it('says when the provider rejects the code, creating nothing', async () => {
      const browser = new ApiClient(srv.url);
      const { state } = await authorize(browser, type);
      const before = await userCount();
      const r = await callback(browser, type, { code: 'not-a-code', state });
      expect(r.body).toMatchObject({ success: false, message: expect.stringMatching(/^The provider rejected the authorization code/) });
      expect(await userCount()).toBe(before);
    });

    it('refuses sign-up while registration is closed, and banned users', async () => {
      await setOption('RegisterEnabled', 'false');
      try {
        const before = await userCount();
        const r = await signIn(new ApiClient(srv.url), type, person(`c${type.slice(0, 1)}`));
        expect(r.body).toEqual({ success: false, message: 'The administrator has turned off new user registration' });
        expect(await userCount()).toBe(before);
      } finally {
        await setOption('RegisterEnabled', 'true');
      }
      const who = person(`b${type.slice(0, 1)}`);
      const browser = new ApiClient(srv.url);
      const id = (await signIn(browser, type, who)).body.data.id as number;
      expect((await root.post('/api/user/manage', { id, action: 'disable' })).body.success).toBe(true);
      const banned = await signIn(new ApiClient(srv.url), type, who);
      expect(banned.body).toEqual({ success: false, message: 'User banned' });
    });

    it('answers a slow provider with a timeout, never a hang', async () => {
      const browser = new ApiClient(srv.url);
      const p = await authorize(browser, type);
      fake.setFault({ delayMs: 2000 });
      const started = Date.now();
      try {
        const slow = await callback(browser, type, p);
        expect(slow.body).toMatchObject({ success: false, message: expect.stringMatching(/did not answer in time/) });
        expect(Date.now() - started).toBeLessThan(1900);
      } finally {
        fake.setFault(null);
      }
    });
  });

  it('says so when a provider is down', async () => {
    const dead = await startFakeOAuth();
    const deadUrl = dead.url;
    await dead.close();
    await setOption('GitHubOAuthEndpoint', deadUrl);
    try {
      const browser = new ApiClient(srv.url);
      const { state } = await (async () => {
        const r = await browser.get('/api/oauth/authorize?type=github');
        return { state: new URL(r.body.data as string).searchParams.get('state')! };
      })();
      const r = await callback(browser, 'github', { code: 'any', state });
      expect(r.body).toMatchObject({ success: false, message: expect.stringMatching(/^Cannot reach the sign-in provider/) });
    } finally {
      await setOption('GitHubOAuthEndpoint', fake.url);
    }
  });

  it('refuses a method that is off, and refuses to turn one on without its configuration', async () => {
    await setOption('LinuxDOOAuthEnabled', 'false');
    try {
      const r = await new ApiClient(srv.url).get('/api/oauth/authorize?type=linuxdo');
      expect(r.body).toEqual({ success: false, message: 'The administrator has not enabled this sign-in method' });
    } finally {
      await setOption('LinuxDOOAuthEnabled', 'true');
    }
    await setOption('OIDCEnabled', 'false');
    await setOption('OIDCClientSecret', '');
    const refused = await root.put('/api/option/', { key: 'OIDCEnabled', value: 'true' });
    expect(refused.body).toMatchObject({ success: false, message: expect.stringMatching(/^Cannot enable OIDC sign-in/) });
    await setOption('OIDCClientSecret', 'mg-secret');
    await setOption('OIDCEnabled', 'true');
    expect((await new ApiClient(srv.url).get('/api/status')).body.data).toMatchObject({ oidc_enabled: true, oidc_client_id: 'mg-client' });
  });
});
