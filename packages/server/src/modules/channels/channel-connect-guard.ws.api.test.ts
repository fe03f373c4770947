import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { FAKE_BAIDU_KEY, FAKE_SPARK_KEY, startFakeBaidu, startFakeRealtime, startFakeSpark, type FakeBaidu, type FakeRealtime, type FakeSpark } from '@modelgate/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { setOutboundResolver } from '../../net/guarded-fetch.js';
import { newUser, type ApiClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { whileResolving } from '../../test-support/fake-dns.js';
import { testDbKinds } from '../../test-support/test-db.js';

const REFUSED_EN =
  "The channel's address leads to an address this server may not connect to (loopback, private, link-local or cloud metadata): refused. The super admin may save the channel again, or allow the range in Allowed private ranges";
const SPARK = 'SparkDesk-v3.5';
const ERNIE = 'ERNIE-4.0-8K';
const REALTIME = 'gpt-4o-realtime-preview';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

/**
 * The connect-time check on the ways out that are not the relay's HTTP pool: the WebSocket
 * upstreams (iFlytek Spark's transport, the Realtime dial, each given the guard's checked lookup;
 * an IP literal, which node never looks up, judged before dialling) and an adapter's side call
 * to its channel's host (Baidu's access token). `localhost` answers a public address while the
 * admin saves, the system's 127.0.0.1 afterwards.
 */
describe.each(testDbKinds())('channel targets checked when dialling and on side calls, on %s', (kind) => {
  let h: RelayHarness;
  let admin: ApiClient;
  let sp: FakeSpark;
  let rt: FakeRealtime;
  let bd: FakeBaidu;

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await priceModels(h, [SPARK, ERNIE]);
    [sp, rt, bd] = await Promise.all([startFakeSpark(), startFakeRealtime({ apiKeys: ['sk-admins-own-key', 'sk-upstream'] }), startFakeBaidu()]);
    admin = await newUser(h.server.url, 'wsadmin');
    expect((await h.root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.data).toMatchObject({ role: 10 });
    expect((await admin.login('wsadmin', 'password123')).body.success).toBe(true);
  });
  afterAll(async () => {
    setOutboundResolver(undefined);
    await Promise.all([sp?.close(), rt?.close(), bd?.close()]);
    await h?.close();
  });
  beforeEach(() => setOutboundResolver(undefined));

  const local = (url: string) => `http://localhost:${new URL(url).port}`;
  const adminSaves = async (fields: Record<string, unknown>) => {
    return whileResolving({ localhost: ['93.184.216.34'] }, () => addChannel(admin, { key: 'sk-admins-own-key', ...fields }));
  };
  /** A Realtime upgrade's outcome: the HTTP refusal, or the open socket. */
  const dialRealtime = async (c: TestCaller): Promise<{ status: number; body: { error: Record<string, unknown> } } | WebSocket> => {
    const ws = new WebSocket(`${h.server.url.replace(/^http/, 'ws')}/v1/realtime?model=${REALTIME}`, { headers: { authorization: `Bearer sk-${c.key}` } });
    ws.on('error', () => undefined);
    const refused = once(ws, 'unexpected-response').then(async ([, res]) => {
      const chunks: Buffer[] = [];
      for await (const chunk of res as IncomingMessage) chunks.push(chunk as Buffer);
      return { status: (res as IncomingMessage).statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: Record<string, unknown> } };
    });
    return Promise.race([once(ws, 'open').then(() => ws), refused]);
  };
  /** Waits until every hold was settled or released (a session's release runs after its sockets closed). */
  const released = async () => {
    const open = async () => (await h.server.ctx.db.db.selectFrom('reservations').select('request_id').execute()).length + h.server.ctx.relay.ledger.openCount;
    for (let i = 0; i < 150 && (await open()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await open()).toBe(0);
  };

  it('iFlytek Spark: the WebSocket to a name that now resolves to loopback is refused; with the range allowed it is dialled at the checked address, charged exactly', async () => {
    const id = await adminSaves({ type: 18, name: 'spark-late', key: FAKE_SPARK_KEY, base_url: local(sp.url), models: SPARK, group: 'spark-late' });
    const c = await addCaller(h, { group: 'spark-late' });
    const before = await balances(h, c);
    const frames = sp.requests.length;
    const err = (await c.client.chat.completions.create({ model: SPARK, messages }).catch((e: unknown) => e)) as { status: number; error: Record<string, unknown> };
    expect(err.status).toBe(500);
    expect(err.error).toMatchObject({ code: 'do_request_failed', message: expect.stringMatching(/^Failed to reach the upstream \(request id: \w+\)$/) });
    expect((await admin.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: REFUSED_EN });
    expect(sp.requests.length).toBe(frames);
    expect(await balances(h, c)).toEqual(before);

    await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
    try {
      const res = await c.client.chat.completions.create({ model: SPARK, messages });
      expect(res.choices[0]!.message.content).toBe('Hello from the fake Spark');
      const expected = res.usage!.prompt_tokens + res.usage!.completion_tokens;
      const after = await balances(h, c);
      expect(before.quota - after.quota).toBe(expected);
      expect(before.remain - after.remain).toBe(expected);
      expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([expected]);
      expect(sp.requests.length).toBe(frames + 1);
    } finally {
      await h.server.ctx.options.set('OutboundAllowedRanges', '');
    }
  });

  it('Realtime: the dial to a name that now resolves to loopback is refused as the usual upstream failure; the allowed range opens', async () => {
    await adminSaves({ name: 'rt-late', base_url: local(rt.url), models: REALTIME, group: 'rt-late' });
    const c = await addCaller(h, { group: 'rt-late' });
    const before = await balances(h, c);
    const dials = rt.connections.length;
    const refused = await dialRealtime(c);
    expect(refused).toMatchObject({ status: 502, body: { error: { code: 'do_request_failed', type: 'new_api_error' } } });
    expect(JSON.stringify((refused as { body: unknown }).body)).not.toContain('127.0.0.1');
    expect(rt.connections.length).toBe(dials);
    await released();
    expect(await balances(h, c)).toEqual(before);

    await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
    try {
      const ws = (await dialRealtime(c)) as WebSocket;
      expect(ws).toBeInstanceOf(WebSocket);
      expect(rt.connections.length).toBe(dials + 1);
      expect(rt.connections.at(-1)!.headers.authorization).toBe('Bearer sk-admins-own-key');
      ws.close();
      await once(ws, 'close');
      await released();
      // A session that asked for no response costs nothing.
      expect(await balances(h, c)).toEqual(before);
      expect(await consumeLogs(h, c.userId)).toEqual([]);
    } finally {
      await h.server.ctx.options.set('OutboundAllowedRanges', '');
    }
  });

  it('Realtime: an untrusted row naming a loopback IP literal (never looked up) is refused before dialling', async () => {
    const id = await addChannel(h.root, { name: 'rt-old', base_url: rt.url, models: REALTIME, group: 'rt-old' });
    await h.server.ctx.db.db.updateTable('channels').set({ target_trusted: 0 }).where('id', '=', id).execute();
    h.server.ctx.relay.channels.invalidate();
    const c = await addCaller(h, { group: 'rt-old' });
    const before = await balances(h, c);
    const dials = rt.connections.length;
    expect(await dialRealtime(c)).toMatchObject({ status: 502, body: { error: { code: 'do_request_failed', type: 'new_api_error' } } });
    expect(rt.connections.length).toBe(dials);
    await released();
    expect(await balances(h, c)).toEqual(before);
  });

  it('Baidu: the access-token side call to the channel’s host goes through the same check', async () => {
    const id = await adminSaves({ type: 15, name: 'baidu-late', key: FAKE_BAIDU_KEY, base_url: local(bd.url), models: ERNIE, group: 'baidu-late' });
    const c = await addCaller(h, { group: 'baidu-late' });
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: ERNIE, messages }).catch((e: unknown) => e)) as { status: number; error: Record<string, unknown> };
    expect(err.status).toBe(500);
    expect(err.error).toMatchObject({ code: 'access_token_failed' });
    expect(String(err.error.message)).toMatch(/^Baidu access token request failed: the channel target is not an address channel requests may reach/);
    expect((await admin.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: REFUSED_EN });
    expect(bd.tokensIssued()).toBe(0);
    expect(await balances(h, c)).toEqual(before);
  });
});
