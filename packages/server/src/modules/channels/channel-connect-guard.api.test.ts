import { expectedChatUsage } from '@modelgate/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setOutboundResolver, type Resolver } from '../../net/guarded-fetch.js';
import { newUser, type ApiClient } from '../../test-support/api-client.js';
import { startCaptureListener, type CaptureListener } from '../../test-support/capture-listener.js';
import { capturePino } from '../../test-support/capture-logger.js';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { whileResolving } from '../../test-support/fake-dns.js';
import { testDbKinds } from '../../test-support/test-db.js';

const REFUSED_EN =
  "The channel's address leads to an address this server may not connect to (loopback, private, link-local or cloud metadata): refused. The super admin may save the channel again, or allow the range in Allowed private ranges";
const REFUSED_ZH = '渠道地址指向本服务器不允许连接的地址（回环、内网、链路本地或云元数据），已拒绝连接；可由超级管理员重新保存该渠道，或在“允许访问的内网网段”中放行';
/** The relay's usual upstream failure, as for any connection that fails (in English: the caller names no language). */
const UPSTREAM_FAILED = expect.stringMatching(/^Failed to reach the upstream \(request id: \w+\)$/);
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const MODELS = ['guard-late', 'guard-probe', 'guard-resave', 'guard-old-row', 'guard-allowed', 'guard-plain'];

/**
 * A save can only judge what a name resolves to then. A channel whose target no root placed is
 * checked again at every new connection its upstream gets (net/upstream-guard.ts): `localhost`
 * answers a public address while the admin saves and 127.0.0.1 afterwards (the system's answer,
 * which is what the relay's own pool used before), so the save passes and the key would go to the
 * listener on loopback. The relay refuses it as an ordinary upstream failure, the probes say the
 * target is refused; neither names the address, which goes to the log.
 */
describe.each(testDbKinds())('channel targets checked when connecting, on %s', (kind) => {
  let h: RelayHarness;
  let admin: ApiClient;
  let catcher: CaptureListener;
  const logs = capturePino('warn');

  beforeAll(async () => {
    h = await startRelayHarness({ kind, log: logs.log });
    await priceModels(h, MODELS);
    catcher = await startCaptureListener();
    admin = await newUser(h.server.url, 'connadmin');
    expect((await h.root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.data).toMatchObject({ role: 10 });
    expect((await admin.login('connadmin', 'password123')).body.success).toBe(true);
  });
  afterAll(async () => {
    setOutboundResolver(undefined);
    await catcher?.close();
    await h?.close();
  });
  beforeEach(() => {
    catcher.seen.length = 0;
    logs.lines.length = 0;
    setOutboundResolver(undefined);
  });

  const port = (url: string) => new URL(url).port;
  /** Saves as the admin while `localhost` answers a public address, then lets the system answer it again (127.0.0.1). */
  const adminSaves = async (fields: Record<string, unknown>) => {
    return whileResolving({ localhost: ['93.184.216.34'] }, () => addChannel(admin, { key: 'sk-admins-own-key', ...fields }));
  };
  const trusted = async (id: number) => Number((await h.server.ctx.db.db.selectFrom('channels').select('target_trusted').where('id', '=', id).executeTakeFirstOrThrow()).target_trusted);
  const chat = (c: Awaited<ReturnType<typeof addCaller>>, model: string) => c.client.chat.completions.create({ model, messages });
  const refusalLogged = () => logs.lines.filter((l) => l.host === 'localhost' && l.address === '127.0.0.1');

  it('the relay refuses an admin’s channel whose name resolves to loopback after the save: usual upstream failure, no charge, nothing reaches the listener', async () => {
    const id = await adminSaves({ name: 'late-loopback', base_url: `http://localhost:${port(catcher.url)}`, models: 'guard-late' });
    expect(await trusted(id)).toBe(0);
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await chat(c, 'guard-late').catch((e: unknown) => e)) as { status: number; error: Record<string, unknown> };
    expect(err.status).toBe(500);
    expect(err.error).toMatchObject({ message: UPSTREAM_FAILED, type: 'new_api_error', code: 'do_request_failed' });
    expect(JSON.stringify(err.error)).not.toContain('127.0.0.1');
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toEqual([]);
    expect(catcher.seen).toEqual([]);
    // The operator's log has what the caller is not told.
    expect(refusalLogged().length).toBeGreaterThan(0);
  });

  it('the test, balance and model-list buttons say the target is refused, naming no address, for admin and root alike', async () => {
    const id = await adminSaves({ name: 'probe-loopback', base_url: `http://localhost:${port(catcher.url)}`, models: 'guard-probe' });
    expect(await admin.get(`/api/channel/test/${id}`).then((r) => r.body)).toMatchObject({ success: false, message: REFUSED_EN });
    admin.lang = 'zh';
    expect((await admin.get(`/api/channel/test/${id}`)).body.message).toBe(REFUSED_ZH);
    admin.lang = 'en';
    expect((await admin.get(`/api/channel/update_balance/${id}`)).body).toEqual({ success: false, message: REFUSED_EN, balance: 0 });
    expect((await admin.get(`/api/channel/fetch_models/${id}`)).body).toEqual({ success: false, message: REFUSED_EN });
    const rootSees = (await h.root.get(`/api/channel/test/${id}`)).body.message as string;
    expect(rootSees.startsWith(REFUSED_EN)).toBe(true);
    expect(rootSees).not.toContain('127.0.0.1');
    expect(catcher.seen).toEqual([]);
    expect(refusalLogged().length).toBeGreaterThanOrEqual(4);
  });

  it('a target root saves is root’s placing: the same loopback channel works once root saves it, with the exact charge', async () => {
    const id = await adminSaves({ name: 'resaved', base_url: `http://localhost:${h.fake.port}`, models: 'guard-resave' });
    const c = await addCaller(h);
    const sent = h.fake.requests.length;
    expect(((await chat(c, 'guard-resave').catch((e: unknown) => e)) as { status: number }).status).toBe(500);
    expect(h.fake.requests.length).toBe(sent);
    // Root's console save sends the record back with the key empty.
    const record = (await h.root.get(`/api/channel/${id}`)).body.data as Record<string, unknown>;
    expect((await h.root.put('/api/channel/', { ...record, key: '' })).body.success).toBe(true);
    expect(await trusted(id)).toBe(1);
    const before = await balances(h, c);
    const res = await chat(c, 'guard-resave');
    expect(res.choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    const usage = expectedChatUsage({ messages });
    const expected = usage.prompt_tokens + usage.completion_tokens;
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expected);
    expect(before.remain - after.remain).toBe(expected);
    expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([expected]);
    expect(h.fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-admins-own-key');
  });

  it('a row from before the record (untrusted) is checked too, an IP literal included; root’s literal loopback channel works', async () => {
    const id = await addChannel(h.root, { name: 'old-row', base_url: h.fake.url, models: 'guard-old-row' });
    expect(await trusted(id)).toBe(1);
    const c = await addCaller(h);
    const before = await balances(h, c);
    expect((await chat(c, 'guard-old-row')).choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    const usage = expectedChatUsage({ messages });
    const expected = usage.prompt_tokens + usage.completion_tokens;
    const mid = await balances(h, c);
    expect(before.quota - mid.quota).toBe(expected);
    expect(before.remain - mid.remain).toBe(expected);
    // What migration 0013 does to every row that was already there.
    await h.server.ctx.db.db.updateTable('channels').set({ target_trusted: 0 }).where('id', '=', id).execute();
    h.server.ctx.relay.channels.invalidate();
    const sent = h.fake.requests.length;
    const err = (await chat(c, 'guard-old-row').catch((e: unknown) => e)) as { status: number; error: Record<string, unknown> };
    expect(err.status).toBe(500);
    expect(err.error).toMatchObject({ message: UPSTREAM_FAILED, code: 'do_request_failed' });
    expect((await admin.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: REFUSED_EN });
    expect(h.fake.requests.length).toBe(sent);
    expect(await balances(h, c)).toEqual(mid);
    expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([expected]);
    expect(logs.lines.some((l) => l.host === '127.0.0.1' && l.address === '127.0.0.1')).toBe(true);
  });

  it('a range the operator allows is reachable through the checked pool', async () => {
    const id = await adminSaves({ name: 'allowed', base_url: `http://localhost:${h.fake.port}`, models: 'guard-allowed' });
    await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
    try {
      const c = await addCaller(h);
      const before = await balances(h, c);
      expect((await chat(c, 'guard-allowed')).choices[0]!.message.content).toBe('Hello from the fake OpenAI');
      const usage = expectedChatUsage({ messages });
      const after = await balances(h, c);
      expect(before.quota - after.quota).toBe(usage.prompt_tokens + usage.completion_tokens);
      expect(before.remain - after.remain).toBe(usage.prompt_tokens + usage.completion_tokens);
      expect((await admin.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: true, message: '' });
      expect(await trusted(id)).toBe(0);
    } finally {
      await h.server.ctx.options.set('OutboundAllowedRanges', '');
    }
  });

  it('costs a trusted channel nothing: its requests never ask the checked lookup', async () => {
    await addChannel(h.root, { name: 'plain', base_url: `http://localhost:${h.fake.port}`, models: 'guard-plain' });
    const asked: string[] = [];
    const counting: Resolver = async (name) => {
      asked.push(name);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    setOutboundResolver(counting);
    const c = await addCaller(h);
    for (let i = 0; i < 3; i++) expect((await chat(c, 'guard-plain')).choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    expect(asked).toEqual([]);
  });
});
