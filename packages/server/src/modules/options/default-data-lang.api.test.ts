import { CHANNEL_COPY_SUFFIX, DEFAULT_CHATS, DEFAULT_USABLE_GROUPS, type Lang } from '@modelgate/shared';
import { startFakeOAuth, type FakeOAuth } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/**
 * Issue 35: data the server makes up (unsaved option defaults, the welcome token's name, a copied
 * channel's suffix) is answered in the caller's language; what an admin saved is answered as saved.
 */
const LANGS: Lang[] = ['zh', 'en'];
const CJK = /[\u3400-\u9fff]/;

const as = (c: ApiClient, lang: Lang): ApiClient => {
  c.lang = lang;
  return c;
};
const chatNames = (chats: ReadonlyArray<Record<string, string>>) => chats.map((c) => Object.keys(c)[0]);
const chatLinks = (chats: ReadonlyArray<Record<string, string>>) => chats.map((c) => Object.values(c)[0]);
const optionOf = async (root: ApiClient, key: string) =>
  ((await root.get('/api/option/')).body.data as Array<{ key: string; value: string }>).find((o) => o.key === key)!.value;

describe.each(testDbKinds())('default data in the caller\u2019s language on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  it.each(LANGS)('answers the unsaved Chats and UserUsableGroups defaults in %s', async (lang) => {
    const status = (await as(new ApiClient(srv.url), lang).get('/api/status')).body.data;
    expect(status.chats).toEqual(DEFAULT_CHATS[lang]);
    expect(JSON.parse(await optionOf(as(root, lang), 'Chats'))).toEqual(DEFAULT_CHATS[lang]);
    expect(JSON.parse(await optionOf(as(root, lang), 'UserUsableGroups'))).toEqual(DEFAULT_USABLE_GROUPS[lang]);

    const user = as(await newUser(srv.url, `grp${lang}`), lang);
    expect((await user.get('/api/user/self/groups')).body.data).toEqual({
      default: { ratio: 1, desc: DEFAULT_USABLE_GROUPS[lang].default },
      vip: { ratio: 1, desc: DEFAULT_USABLE_GROUPS[lang].vip },
    });
    expect((await user.get('/api/user/groups')).body.data.default.desc).toBe(DEFAULT_USABLE_GROUPS[lang].default);
    expect((await user.get('/api/pricing')).body.usable_group).toEqual(DEFAULT_USABLE_GROUPS[lang]);

    // A user in a group UserUsableGroups does not name sees it described in the same language.
    expect((await as(root, lang).put('/api/user/', { id: user.userId, group: 'svip' })).body.success).toBe(true);
    expect((await user.get('/api/user/self/groups')).body.data.svip).toEqual({ ratio: 1, desc: lang === 'zh' ? '用户分组' : 'Your group' });
    expect((await user.get('/api/pricing')).body.usable_group.svip).toBe(lang === 'zh' ? '用户分组' : 'Your group');
  });

  it('keeps the zh defaults the reference ships, and no Chinese in the en ones', async () => {
    expect(chatNames(DEFAULT_CHATS.zh)).toContain('ChatGPT Next Web 官方示例');
    expect(DEFAULT_USABLE_GROUPS.zh).toEqual({ default: '默认分组', vip: 'vip分组' });
    for (const name of [...chatNames(DEFAULT_CHATS.en), ...Object.values(DEFAULT_USABLE_GROUPS.en)]) expect(name).not.toMatch(CJK);
    // Only the names differ: the same clients, the same links.
    expect(chatLinks(DEFAULT_CHATS.en)).toEqual(chatLinks(DEFAULT_CHATS.zh));
    expect(Object.keys(DEFAULT_USABLE_GROUPS.en)).toEqual(Object.keys(DEFAULT_USABLE_GROUPS.zh));
  });

  it('answers a value an admin saved exactly as saved, in both languages, on this node and after a restart', async () => {
    // Saved in the English console, in Chinese: it stays Chinese for everyone.
    const chats = JSON.stringify([{ 'ChatGPT Next Web 官方示例': 'https://chat.example/#/?key={key}' }]);
    const groups = JSON.stringify({ default: '默认分组', vip: '贵宾' });
    expect((await as(root, 'en').put('/api/option/', { key: 'Chats', value: chats })).body.success).toBe(true);
    expect((await as(root, 'en').put('/api/option/', { key: 'UserUsableGroups', value: groups })).body.success).toBe(true);
    const second = await startTestServer({ kind, alongside: srv });
    try {
      for (const url of [srv.url, second.url]) {
        for (const lang of LANGS) {
          expect((await as(new ApiClient(url), lang).get('/api/status')).body.data.chats).toEqual(JSON.parse(chats));
          const admin = as(await rootClient(url), lang);
          expect(await optionOf(admin, 'Chats')).toBe(chats);
          expect(await optionOf(admin, 'UserUsableGroups')).toBe(groups);
          expect((await admin.get('/api/pricing')).body.usable_group).toMatchObject({ default: '默认分组', vip: '贵宾' });
        }
      }
    } finally {
      await second.close();
    }
    // Saving the English default text keeps it English for a Chinese caller too.
    const en = JSON.stringify(DEFAULT_CHATS.en, null, 2);
    await as(root, 'en').put('/api/option/', { key: 'Chats', value: en });
    expect((await as(new ApiClient(srv.url), 'zh').get('/api/status')).body.data.chats).toEqual(DEFAULT_CHATS.en);
  });

  it.each(LANGS)('names a copied channel with the %s suffix unless the caller gives one', async (lang) => {
    const admin = as(root, lang);
    const created = await admin.post('/api/channel/', { type: 1, name: `orig-${lang}`, key: 'sk-1', base_url: 'https://api.example.com', models: 'gpt-4o', group: 'default' });
    expect(created.body.success, created.body.message).toBe(true);
    const id = (await srv.ctx.db.db.selectFrom('channels').select('id').where('name', '=', `orig-${lang}`).executeTakeFirstOrThrow()).id;
    const nameOf = async (copyId: number) => (await admin.get(`/api/channel/${copyId}`)).body.data.name;
    const copy = await admin.post(`/api/channel/copy/${id}`);
    expect(copy.body.success, copy.body.message).toBe(true);
    expect(await nameOf(copy.body.data.id)).toBe(`orig-${lang}${CHANNEL_COPY_SUFFIX[lang]}`);
    expect(CHANNEL_COPY_SUFFIX[lang]).toBe(lang === 'zh' ? '_复制' : '_copy');
    const named = await admin.post(`/api/channel/copy/${id}?suffix=-b`);
    expect(await nameOf(named.body.data.id)).toBe(`orig-${lang}-b`);
  });
});

describe.each(testDbKinds())('the welcome token\u2019s name on %s', (kind) => {
  let srv: TestServer;
  let fake: FakeOAuth;

  beforeAll(async () => {
    fake = await startFakeOAuth({ clientId: 'mg-client', clientSecret: 'mg-secret', requirePkce: false });
    srv = await startTestServer({ kind, env: { GENERATE_DEFAULT_TOKEN: 'true' } });
    const root = await rootClient(srv.url);
    for (const [key, value] of Object.entries({
      OutboundAllowedRanges: '127.0.0.1/32',
      GitHubOAuthEndpoint: fake.url,
      GitHubApiEndpoint: fake.url,
      GitHubClientId: 'mg-client',
      GitHubClientSecret: 'mg-secret',
      GitHubOAuthEnabled: 'true',
    })) expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
  });
  afterAll(async () => {
    await srv?.close();
    await fake?.close();
  });

  const tokenNames = async (c: ApiClient) => ((await c.get('/api/token/?p=0&size=10')).body.data as Array<{ name: string }>).map((t) => t.name);

  it.each(LANGS)('follows the language of a password sign-up (%s)', async (lang) => {
    const c = as(new ApiClient(srv.url), lang);
    const username = `welc${lang}`;
    expect((await c.post('/api/user/register', { username, password: 'password123', password2: 'password123' })).body.success).toBe(true);
    expect((await c.login(username, 'password123')).body.success).toBe(true);
    expect(await tokenNames(c)).toEqual([lang === 'zh' ? `${username}的初始令牌` : `${username}'s initial token`]);
  });

  it.each(LANGS)('follows the language of a GitHub sign-up (%s)', async (lang) => {
    const c = as(new ApiClient(srv.url), lang);
    fake.setIdentity({ id: lang === 'zh' ? 9101 : 9102, login: `gh${lang}`, name: `GH ${lang}`, email: `gh-${lang}@example.com` });
    const authorize = await c.get('/api/oauth/authorize?type=github');
    expect(authorize.body.success, authorize.body.message).toBe(true);
    const back = new URL((await fetch(authorize.body.data as string, { redirect: 'manual' })).headers.get('location')!);
    const signIn = await c.get(`/api/oauth/github?code=${encodeURIComponent(back.searchParams.get('code')!)}&state=${encodeURIComponent(back.searchParams.get('state')!)}`);
    expect(signIn.body.success, signIn.body.message).toBe(true);
    c.userId = signIn.body.data.id;
    const username: string = signIn.body.data.username;
    expect(await tokenNames(c)).toEqual([lang === 'zh' ? `${username}的初始令牌` : `${username}'s initial token`]);
  });
});
