import { startFakeOAuth, type FakeIdentity, type FakeOAuth } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../ledger/reconcile.js';
import { ApiClient, newUser, rootClient, type ApiResult } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/**
 * Issue 29: a GitHub sign-up reporting `KNOWN@Example.com` made a second account for the mailbox
 * an account held as `known@example.com`. A new identity whose email an account holds (ignoring
 * case) now creates nothing and says how to get in: sign in to that account and bind the provider.
 */
const EMAIL_TAKEN = 'An account with this email already exists: sign in to it and bind this sign-in method in your settings';

describe.each(testDbKinds())('OAuth sign-up with an email in use, ignoring case, on %s', (kind) => {
  let srv: TestServer;
  let fake: FakeOAuth;
  let root: ApiClient;
  let known: ApiClient;

  const signIn = async (client: ApiClient, type: 'github' | 'oidc', who: FakeIdentity): Promise<ApiResult> => {
    fake.setIdentity(who);
    const start = await client.get(`/api/oauth/authorize?type=${type}`);
    expect(start.body.success, start.body.message).toBe(true);
    const res = await fetch(start.body.data as string, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    const r = await client.get(`/api/oauth/${type}?code=${encodeURIComponent(back.searchParams.get('code')!)}&state=${encodeURIComponent(back.searchParams.get('state')!)}`);
    if (r.body.success && r.body.data) client.userId = r.body.data.id;
    return r;
  };
  const counts = async () => {
    const db = srv.ctx.db.db;
    const users = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const entries = await db.selectFrom('ledger_entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { users: Number(users.n), ledgerEntries: Number(entries.n) };
  };

  beforeAll(async () => {
    fake = await startFakeOAuth({ clientId: 'mg-client', clientSecret: 'mg-secret', requirePkce: false });
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    for (const [key, value] of Object.entries({
      OutboundAllowedRanges: '127.0.0.1/32',
      GitHubOAuthEndpoint: fake.url, GitHubApiEndpoint: fake.url, GitHubClientId: 'mg-client', GitHubClientSecret: 'mg-secret', GitHubOAuthEnabled: 'true',
      OIDCWellKnown: fake.discoveryUrl, OIDCClientId: 'mg-client', OIDCClientSecret: 'mg-secret', OIDCEnabled: 'true',
      QuotaForNewUser: '1000',
    })) expect((await root.put('/api/option/', { key, value })).body, key).toMatchObject({ success: true });
    known = await newUser(srv.url, 'known');
    expect((await root.put('/api/user/', { id: known.userId, email: 'known@example.com' })).body.success).toBe(true);
  });
  afterAll(async () => {
    await srv?.close();
    await fake?.close();
  });

  it('refuses a GitHub sign-up with KNOWN@Example.com: no second account, no gift, nothing bound', async () => {
    const before = await counts();
    const r = await signIn(new ApiClient(srv.url), 'github', { id: 9001, login: 'known-gh', name: 'Known', email: 'KNOWN@Example.com' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: false, message: EMAIL_TAKEN });
    const zh = new ApiClient(srv.url);
    zh.lang = 'zh';
    expect((await signIn(zh, 'github', { id: 9001, login: 'known-gh', name: 'Known', email: 'KNOWN@Example.com' })).body).toEqual({
      success: false,
      message: '该邮箱已属于一个现有账户，请先登录该账户，再在个人设置中绑定此登录方式',
    });
    // The same mailbox as stored, through OIDC: refused alike.
    expect((await signIn(new ApiClient(srv.url), 'oidc', { id: 'sub-known', login: 'known-oidc', email: 'known@example.com' })).body).toEqual({ success: false, message: EMAIL_TAKEN });
    expect(await counts()).toEqual(before);
    const holders = await srv.ctx.db.db.selectFrom('users').select('id').where((eb) => eb.or([eb('github_id', '=', 'known-gh'), eb('oidc_id', '=', 'sub-known')])).execute();
    expect(holders).toEqual([]);
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });

  it('signs the existing account in once its owner has bound the identity', async () => {
    const who = { id: 9001, login: 'known-gh', name: 'Known', email: 'KNOWN@Example.com' };
    expect((await signIn(known, 'github', who)).body).toEqual({ success: true, message: 'bind' });
    const later = new ApiClient(srv.url);
    const r = await signIn(later, 'github', who);
    expect(r.body).toMatchObject({ success: true, data: { id: known.userId, username: 'known' } });
    // Its own sign-up gift only: signing in through GitHub gave it nothing more.
    expect((await later.get('/api/user/self')).body.data).toMatchObject({ id: known.userId, github_id: 'known-gh', email: 'known@example.com', quota: 1000 });
  });

  it('still signs up an identity whose email nobody holds, with that email and the new-user gift', async () => {
    const before = await counts();
    const fresh = new ApiClient(srv.url);
    const r = await signIn(fresh, 'github', { id: 9002, login: 'fresh-gh', name: 'Fresh', email: 'Fresh@Example.com' });
    expect(r.body).toMatchObject({ success: true, data: { username: expect.stringMatching(/^github_\d+$/) } });
    expect((await fresh.get('/api/user/self')).body.data).toMatchObject({ github_id: 'fresh-gh', email: 'Fresh@Example.com', quota: 1000, used_quota: 0 });
    expect(await counts()).toEqual({ users: before.users + 1, ledgerEntries: before.ledgerEntries + 1 });
    const gift = await srv.ctx.db.db.selectFrom('logs').select(['content', 'quota']).where('user_id', '=', fresh.userId!).execute();
    expect(gift).toEqual([{ content: '新用户注册赠送 ＄0.002000 额度', quota: 0 }]);
    expect((await reconcile(srv.ctx.db.db)).ok).toBe(true);
  });
});
