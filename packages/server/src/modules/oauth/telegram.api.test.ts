import { telegramLoginPayload } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const BOT_TOKEN = '123456:replay-bot-token';
const USED = { success: false, message: 'This Telegram login data has already been used; please sign in again' };
const query = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const nowSec = () => Math.floor(Date.now() / 1000);

/** Where the spent payloads live: the database always, Redis when the run has one. */
const backends = (): Array<[string, Record<string, string>]> => {
  const out: Array<[string, Record<string, string>]> = testDbKinds().map((k) => [k, {}]);
  if (process.env.TEST_REDIS_URL) out.push(['sqlite + redis', { REDIS_CONN_STRING: process.env.TEST_REDIS_URL }]);
  return out;
};

describe.each(backends())('a Telegram login payload is accepted once, on two nodes over %s', (label, extraEnv) => {
  let a: TestServer;
  let b: TestServer;
  const kind = label.startsWith('postgres') ? 'postgres' : label.startsWith('mysql') ? 'mysql' : 'sqlite';
  // Telegram ids unique to this run: a Redis shared by runs keeps spent payloads for their window.
  const base = 7_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
  let owner: ApiClient;
  // Distinct payloads for one Telegram user need distinct signing times: one second apart, counting down.
  const start = nowSec();
  let issued = 0;
  const signedAt = () => start - issued++;

  const signIn = (srv: TestServer, fields: Record<string, string>) => new ApiClient(srv.url).get(`/api/oauth/telegram/login?${query(fields)}`);
  const sessionsOf = async (userId: number) => (await a.ctx.db.db.selectFrom('sessions').select('id').where('user_id', '=', userId).execute()).length;

  beforeAll(async () => {
    a = await startTestServer({ kind, env: { NODE_ID: 'tg-a', ...extraEnv } });
    const root = await rootClient(a.url);
    for (const [key, value] of [['TelegramBotName', 'mg_bot'], ['TelegramBotToken', BOT_TOKEN], ['TelegramOAuthEnabled', 'true']]) {
      expect((await root.put('/api/option/', { key, value })).body.success).toBe(true);
    }
    // Started after the options were saved, so it reads them at boot like any node.
    b = await startTestServer({ alongside: a, env: { NODE_ID: 'tg-b', ...extraEnv } });
    owner = await newUser(a.url, `tgown${label.slice(0, 2)}`);
    const bind = telegramLoginPayload(BOT_TOKEN, { id: base, first_name: 'Owner' }, { authDate: signedAt() });
    expect((await owner.get(`/api/oauth/telegram/bind?${query(bind)}`)).body).toEqual({ success: true, message: '' });
    // The bind payload is spent as well: it cannot sign in afterwards, on either node.
    expect((await signIn(b, bind)).body).toEqual(USED);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('signs in once; the same payload again, on the same or the other node, is refused and opens no session', async () => {
    const payload = telegramLoginPayload(BOT_TOKEN, { id: base, first_name: 'Owner' }, { authDate: signedAt() });
    const first = await signIn(a, { ...payload, lang: 'en' });
    expect(first.body).toMatchObject({ success: true, data: { id: owner.userId } });
    expect(first.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(true);
    const sessions = await sessionsOf(owner.userId!);

    const sameNode = await signIn(a, payload);
    expect(sameNode.status).toBe(200);
    expect(sameNode.body).toEqual(USED);
    expect(sameNode.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false);
    expect((await signIn(b, payload)).body).toEqual(USED);
    // A re-cased hash still verifies (hex): it is the same payload.
    expect((await signIn(b, { ...payload, hash: payload.hash!.toUpperCase() })).body).toEqual(USED);
    const zh = await new ApiClient(a.url).call('GET', `/api/oauth/telegram/login?${query(payload)}`, undefined, { 'Accept-Language': 'zh-CN' });
    expect(zh.body).toEqual({ success: false, message: '该 Telegram 登录数据已被使用，请重新登录' });
    expect(await sessionsOf(owner.userId!)).toBe(sessions);
  });

  it('lets exactly one of ten concurrent uses across both nodes through', async () => {
    const payload = telegramLoginPayload(BOT_TOKEN, { id: base, first_name: 'Owner' }, { authDate: signedAt() });
    const before = await sessionsOf(owner.userId!);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(i % 2 ? b : a, payload)));
    expect(results.filter((r) => r.body.success === true)).toHaveLength(1);
    expect(results.filter((r) => r.body.success !== true).map((r) => r.body)).toEqual(Array(9).fill(USED));
    expect(await sessionsOf(owner.userId!)).toBe(before + 1);
  });

  it('spends nothing on a payload that fails verification, and refuses one older than ten minutes', async () => {
    const payload = telegramLoginPayload(BOT_TOKEN, { id: base, first_name: 'Owner' }, { authDate: signedAt() });
    // The real payload's hash on other data: refused, and the real payload still works afterwards.
    const tampered = await signIn(a, { ...payload, id: String(base + 1) });
    expect(tampered.body).toEqual({ success: false, message: 'The Telegram login data failed verification' });
    expect((await signIn(b, payload)).body).toMatchObject({ success: true, data: { id: owner.userId } });

    const stale = telegramLoginPayload(BOT_TOKEN, { id: base, first_name: 'Owner' }, { authDate: nowSec() - 601 });
    expect((await signIn(a, stale)).body).toEqual({ success: false, message: 'The Telegram login data is more than 10 minutes old; please sign in again' });
    const fresh = telegramLoginPayload(BOT_TOKEN, { id: base, first_name: 'Owner' }, { authDate: nowSec() - 590 });
    expect((await signIn(a, fresh)).body).toMatchObject({ success: true, data: { id: owner.userId } });
  });

  it('spends a payload on a bind too: replayed onto another account it binds nothing', async () => {
    const payload = telegramLoginPayload(BOT_TOKEN, { id: base + 2, first_name: 'Second' }, { authDate: signedAt() });
    const victim = await newUser(a.url, `tgvic${label.slice(0, 2)}`);
    expect((await victim.get(`/api/oauth/telegram/bind?${query(payload)}`)).body).toEqual({ success: true, message: '' });
    const attacker = await newUser(b.url, `tgatk${label.slice(0, 2)}`);
    // Unbind the victim first, so only the replay check can stop the attacker's bind.
    await a.ctx.db.db.updateTable('users').set({ telegram_id: '' }).where('id', '=', victim.userId!).execute();
    expect((await attacker.get(`/api/oauth/telegram/bind?${query(payload)}`)).body).toEqual(USED);
    expect((await attacker.get('/api/user/self')).body.data.telegram_id).toBe('');
  });
});
