import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type ApiClient } from '../../test-support/api-client.js';
import { startCaptureListener, type CannedReply, type CaptureListener } from '../../test-support/capture-listener.js';
import { addChannel, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';

/** What an internal service might answer; no fragment of it may reach an admin. */
const SECRET = 'TOPSECRET-7f3a9c-internal-metadata-credentials';
const FRAGMENTS = ['TOPSECRET', '7f3a9c', 'internal-metadata', 'credentials'];

const json = (status: number, body: unknown): CannedReply => ({ status, body: JSON.stringify(body), contentType: 'application/json' });
const plain = (status: number): CannedReply => ({ status, body: `${SECRET}\n${SECRET}`, contentType: 'text/plain' });

/** Upstream answers and what an admin sees for them: status-based text only. */
const CASES: Array<{ name: string; reply: CannedReply; test: string; balance: string; models: string }> = [
  {
    name: 'a 500 with a text body',
    reply: plain(500),
    test: 'The upstream answered with an error status: HTTP 500',
    balance: 'The upstream answered with an error status: HTTP 500',
    models: 'Failed to fetch the model list: HTTP 500',
  },
  {
    name: 'a 200 with a text body',
    reply: plain(200),
    test: 'The upstream answered with an unexpected response: HTTP 200: not JSON',
    balance: 'The upstream answered with an unexpected response: HTTP 200: not a JSON object',
    models: 'Failed to fetch the model list: invalid JSON',
  },
  {
    name: 'a 401 with an OpenAI error object',
    reply: json(401, { error: { message: SECRET, type: SECRET, code: SECRET } }),
    test: 'The upstream answered with an error status: HTTP 401',
    balance: 'The upstream answered with an error status: HTTP 401',
    models: 'Failed to fetch the model list: HTTP 401',
  },
  {
    name: 'a 200 with an error object',
    reply: json(200, { error: { message: SECRET } }),
    test: 'The upstream answered with an unexpected response: HTTP 200: error object',
    balance: 'The upstream answered with an unexpected response: HTTP 200: error object',
    models: 'Failed to fetch the model list: HTTP 200: error object',
  },
  {
    name: 'a 400 with a vendor message',
    reply: json(400, { message: SECRET, msg: SECRET, detail: SECRET }),
    test: 'The upstream answered with an error status: HTTP 400',
    balance: 'The upstream answered with an error status: HTTP 400',
    models: 'Failed to fetch the model list: HTTP 400',
  },
];

describe('channel probes never echo what an upstream answered to an admin', () => {
  let h: RelayHarness;
  let admin: ApiClient;
  let internal: CaptureListener;
  let channelId: number;

  beforeAll(async () => {
    h = await startRelayHarness();
    internal = await startCaptureListener();
    admin = await newUser(h.server.url, 'opsadmin');
    await h.root.post('/api/user/manage', { id: admin.userId, action: 'promote' });
    // A role change ends the user's sessions: the new admin signs in again.
    await admin.login('opsadmin', 'password123');
    // The "internal" service listens on loopback, where a non-root admin may point a channel only once the operator allows it.
    await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
    // The admin creates the channel itself, with its own key, pointing at the "internal" service.
    channelId = await addChannel(admin, { name: 'internal', base_url: internal.url, key: 'sk-admins-key' });
  });
  afterAll(async () => {
    await internal?.close();
    await h?.close();
  });

  const leaks = (body: unknown) => FRAGMENTS.filter((f) => JSON.stringify(body).includes(f));

  it.each(CASES)('$name', async ({ reply, test, balance, models }) => {
    internal.answer(reply);
    internal.seen.length = 0;
    const t = await admin.get(`/api/channel/test/${channelId}`);
    const b = await admin.get(`/api/channel/update_balance/${channelId}/`);
    const m = await admin.get(`/api/channel/fetch_models/${channelId}`);
    const mNew = await admin.post('/api/channel/fetch_models', { base_url: internal.url, key: 'sk-admins-key' });
    expect(internal.seen.length).toBeGreaterThanOrEqual(4);
    for (const r of [t, b, m, mNew]) expect(leaks(r.body)).toEqual([]);
    expect(t.body).toMatchObject({ success: false, message: test, time: expect.any(Number) });
    expect(b.body).toEqual({ success: false, message: balance, balance: 0 });
    expect(m.body).toEqual({ success: false, message: models });
    expect(mNew.body).toEqual({ success: false, message: models });
  });

  it('says the same in Chinese', async () => {
    internal.answer(plain(502));
    admin.lang = 'zh';
    const t = await admin.get(`/api/channel/test/${channelId}`);
    admin.lang = 'en';
    expect(t.body.message).toBe('上游返回了错误状态: HTTP 502');
  });

  it('names a transport failure by its code only', async () => {
    const dead = await addChannel(admin, { name: 'dead', base_url: 'http://127.0.0.1:1', key: 'sk-admins-key' });
    expect((await admin.get(`/api/channel/test/${dead}`)).body.message).toBe('Could not reach the upstream: ECONNREFUSED');
    expect((await admin.get(`/api/channel/update_balance/${dead}`)).body.message).toBe('Could not reach the upstream: ECONNREFUSED');
    expect((await admin.get(`/api/channel/fetch_models/${dead}`)).body.message).toBe('Failed to fetch the model list: ECONNREFUSED');
  });

  it('refuses a balance that is not a number', async () => {
    internal.answer(json(200, { hard_limit_usd: SECRET, total_usage: 1 }));
    const b = await admin.get(`/api/channel/update_balance/${channelId}`);
    expect(b.body).toEqual({ success: false, message: 'The upstream answered with an unexpected response: HTTP 200: no numeric balance', balance: 0 });
  });

  it('shows root a short excerpt with the channel key and bearer tokens masked', async () => {
    const key = 'sk-channel-key-9d8c7b6a';
    const id = await addChannel(h.root, { name: 'root-view', base_url: internal.url, key });
    internal.answer(json(401, { error: { message: `Incorrect API key provided: ${key}. Sent: Bearer ${key}x \u0007 ${'x'.repeat(400)}` } }));
    const r = await h.root.get(`/api/channel/test/${id}`);
    expect(r.body.success).toBe(false);
    expect(r.body.message).toMatch(/^The upstream answered with an error status: HTTP 401 \(Incorrect API key provided: \*\*\*\. Sent: Bearer \*\*\* x+…\)$/);
    expect(r.body.message).not.toContain('9d8c7b6a');
    expect(r.body.message.length).toBeLessThan(260);
  });
});
