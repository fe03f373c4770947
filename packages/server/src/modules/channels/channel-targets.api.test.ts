import { createServer, type Server } from 'node:net';
import { serverMessage } from '@modelgate/shared';
import { makeServiceAccount, startFakeVertex, type FakeVertex } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type ApiClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';

const en = (code: Parameters<typeof serverMessage>[0]) => serverMessage(code, 'en');
const KEY_AGAIN = en('CHANNEL_KEY_REQUIRED_FOR_TARGET');
/** One model per Vertex channel: the relay picks among the channels serving a model. */
const [V1, V2, V3] = ['tgt-vertex-1', 'tgt-vertex-2', 'tgt-vertex-3'];

/**
 * Issue 29: a non-root admin extracted a Vertex AI channel's Google access token by editing only
 * its region (`other`), which becomes the host (`https://{region}-aiplatform.googleapis.com`):
 * `127.0.0.1:PORT/x?` sent the test's `Authorization: Bearer ya29…` to the admin's listener, and
 * needed no key. Every field that decides where a channel's requests go is now validated by type
 * (shared channel-targets.ts), needs the key again from a non-root admin, and is refused by the
 * adapter at request time when a row predates the rule.
 */
describe.each(testDbKinds())('where a channel’s requests go, on %s', (kind) => {
  let h: RelayHarness;
  let admin: ApiClient;
  let vertex: FakeVertex;
  let vertexKey = '';
  /** A bare TCP listener on loopback: counts every connection, TLS or not (a capture listener only sees HTTP requests). */
  let listener: Server;
  let connections = 0;
  let listenerPort = 0;

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await priceModels(h, [V1, V2, V3, 'tgt-azure', 'tgt-plain']);
    const sa = makeServiceAccount({ tokenUri: '' });
    vertex = await startFakeVertex({ serviceAccounts: [sa.account] });
    vertexKey = JSON.stringify({ ...sa.key, token_uri: vertex.tokenUri });
    // The key's token endpoint is the fake on loopback: fetched through the guarded client once the operator allows it.
    await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
    listener = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    listenerPort = (listener.address() as { port: number }).port;
    admin = await newUser(h.server.url, 'tgtadmin');
    expect((await h.root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.data).toMatchObject({ role: 10 });
    expect((await admin.login('tgtadmin', 'password123')).body.success).toBe(true);
  });
  afterAll(async () => {
    await new Promise<void>((r) => listener?.close(() => r()));
    await vertex?.close();
    await h?.close();
  });

  const row = (id: number) => h.server.ctx.db.db.selectFrom('channels').select(['other', 'base_url', 'setting', 'type', 'target_trusted']).where('id', '=', id).executeTakeFirstOrThrow();
  const record = async (c: ApiClient, id: number) => (await c.get(`/api/channel/${id}`)).body.data as Record<string, unknown>;
  const tokenRequests = () => vertex.requests.filter((r) => r.kind === 'token').length;

  it('refuses the Vertex region that moved the host, with or without a key, in both languages; the row is unchanged', async () => {
    const id = await addChannel(h.root, { name: 'vertex-victim', type: 41, key: vertexKey, other: 'us-east5', models: V1 });
    const attack = `127.0.0.1:${listenerPort}/x?`;
    const whole = await record(admin, id);
    expect((await admin.put('/api/channel/', { ...whole, other: attack, key: '' })).body).toEqual({ success: false, message: en('CHANNEL_TARGET_VERTEX_REGION') });
    admin.lang = 'zh';
    expect((await admin.put('/api/channel/', { ...whole, other: attack, key: '' })).body).toEqual({ success: false, message: serverMessage('CHANNEL_TARGET_VERTEX_REGION', 'zh') });
    admin.lang = 'en';
    expect((await admin.put('/api/channel/', { id, other: `{"default":"${attack}"}` })).body.message).toBe(en('CHANNEL_TARGET_VERTEX_REGION'));
    expect((await admin.put('/api/channel/', { ...whole, other: attack, key: vertexKey })).body.message).toBe(en('CHANNEL_TARGET_VERTEX_REGION'));
    // Nor can root store it, nor an admin create it.
    expect((await h.root.put('/api/channel/', { ...whole, other: attack, key: '' })).body.message).toBe(en('CHANNEL_TARGET_VERTEX_REGION'));
    expect((await admin.post('/api/channel/', { type: 41, name: 'vertex-evil', key: vertexKey, other: 'evil.test/', models: V1 })).body.message).toBe(en('CHANNEL_TARGET_VERTEX_REGION'));
    expect(await row(id)).toMatchObject({ other: 'us-east5', target_trusted: 1 });
    expect(connections).toBe(0);
  });

  it('asks a non-root admin for the key again to change the region; root may', async () => {
    const id = await addChannel(h.root, { name: 'vertex-moves', type: 41, key: vertexKey, other: 'us-east5', models: V2 });
    expect((await admin.put('/api/channel/', { ...(await record(admin, id)), other: 'europe-west4', key: '' })).body).toEqual({ success: false, message: KEY_AGAIN });
    expect((await admin.put('/api/channel/', { id, other: '{"default":"us-east5","gemini-2.5-pro":"europe-west4"}' })).body.message).toBe(KEY_AGAIN);
    expect(await row(id)).toMatchObject({ other: 'us-east5', target_trusted: 1 });
    // Unrelated edits stay keyless and keep root's placing.
    expect((await admin.put('/api/channel/', { ...(await record(admin, id)), name: 'vertex-renamed', key: '' })).body.success).toBe(true);
    expect(await row(id)).toMatchObject({ other: 'us-east5', target_trusted: 1 });
    // With the key the move is the admin's own; a validated region on Google's host needs no check when connecting.
    expect((await admin.put('/api/channel/', { ...(await record(admin, id)), other: 'europe-west4', key: vertexKey })).body.success).toBe(true);
    expect(await row(id)).toMatchObject({ other: 'europe-west4', target_trusted: 1 });
    // A base URL the admin chooses is checked at every connection until root saves the channel.
    expect((await admin.put('/api/channel/', { id, base_url: vertex.url, key: vertexKey })).body.success).toBe(true);
    expect(await row(id)).toMatchObject({ base_url: vertex.url, target_trusted: 0 });
    expect((await h.root.put('/api/channel/', { ...(await record(h.root, id)), other: 'us-central1', key: '' })).body.success).toBe(true);
    expect(await row(id)).toMatchObject({ other: 'us-central1', target_trusted: 1 });
  });

  it('applies the same to every other field placed in a URL: Cloudflare account, Azure API version, Spark version, proxy', async () => {
    const cf = await addChannel(h.root, { name: 'cf', type: 39, key: 'cf-token', other: '0123456789abcdef0123456789abcdef', models: '@cf/meta/llama-3.1-8b-instruct' });
    expect((await admin.put('/api/channel/', { id: cf, other: 'fedcba9876543210fedcba9876543210' })).body.message).toBe(KEY_AGAIN);
    expect((await admin.put('/api/channel/', { id: cf, other: '../../zones', key: 'cf-token' })).body.message).toBe(en('CHANNEL_TARGET_CLOUDFLARE_ACCOUNT'));
    const az = await addChannel(h.root, { name: 'az', type: 3, key: 'az-key', base_url: 'https://res.example.com', other: '2024-10-21', models: 'tgt-azure' });
    expect((await admin.put('/api/channel/', { id: az, other: '2025-01-01-preview' })).body.message).toBe(KEY_AGAIN);
    expect((await admin.put('/api/channel/', { id: az, other: '2024-10-21&deployment=x', key: 'az-key' })).body.message).toBe(en('CHANNEL_TARGET_AZURE_VERSION'));
    // An empty version is the type's default: no move for a channel on the default.
    const azDefault = await addChannel(h.root, { name: 'az-default', type: 3, key: 'az-key', base_url: 'https://res.example.com', models: 'tgt-azure' });
    expect((await row(azDefault)).other).toBe('2023-06-01-preview');
    expect((await admin.put('/api/channel/', { id: azDefault, other: '', name: 'az-default-2' })).body.success).toBe(true);
    const sp = await addChannel(h.root, { name: 'sp', type: 18, key: 'a|b|c', other: 'v3.5', models: 'SparkDesk-v3.5' });
    expect((await admin.put('/api/channel/', { id: sp, other: 'v4.0' })).body.message).toBe(KEY_AGAIN);
    expect((await admin.put('/api/channel/', { id: sp, other: '../v1', key: 'a|b|c' })).body.message).toBe(en('CHANNEL_TARGET_SPARK_VERSION'));
    const plain = await addChannel(h.root, { name: 'plain', base_url: 'https://api.example.com', models: 'tgt-plain' });
    expect((await admin.put('/api/channel/', { id: plain, setting: '{"proxy":"file:///etc/passwd"}', key: 'sk-x' })).body.message).toBe(en('CHANNEL_TARGET_PROXY'));
    expect((await admin.put('/api/channel/', { id: plain, setting: '{"proxy":"http://10.0.0.8:3128"}', key: 'sk-x' })).body.message).toBe(`${en('CHANNEL_BASE_URL_PRIVATE')}: 10.0.0.8`);
    for (const base of ['ftp://files.example', 'https://user:pw@api.example.com', 'https://{model}.example.com/v1'])
      expect([base, (await h.root.put('/api/channel/', { id: plain, base_url: base })).body.message]).toEqual([base, en('CHANNEL_TARGET_BASE_URL')]);
    // Ali's `other` is a plugin header: no target, no key needed.
    const ali = await addChannel(h.root, { name: 'ali', type: 17, key: 'sk-dashscope1', models: 'qwen-turbo' });
    expect((await admin.put('/api/channel/', { id: ali, other: 'some-plugin' })).body.success).toBe(true);
    for (const id of [cf, az, azDefault, sp, plain, ali]) expect((await row(id)).target_trusted).toBe(1);
  });

  it('records who placed a target: root, a copy of root’s channel and the type’s own host are trusted, an admin’s address is not', async () => {
    const rootId = await addChannel(h.root, { name: 'placed-by-root', base_url: 'https://api.example.com', models: 'tgt-plain' });
    const adminId = await addChannel(admin, { name: 'placed-by-admin', base_url: 'https://api.example.com', key: 'sk-own', models: 'tgt-plain' });
    const adminProxy = await addChannel(admin, { name: 'proxied-by-admin', setting: '{"proxy":"http://proxy.example:3128"}', key: 'sk-own', models: 'tgt-plain' });
    const typeHost = await addChannel(admin, { name: 'type-host', key: 'sk-own', models: 'tgt-plain' });
    const copy = (await admin.post(`/api/channel/copy/${rootId}?suffix=-c`)).body.data.id as number;
    const trust = await Promise.all([rootId, adminId, adminProxy, typeHost, copy].map(async (id) => (await row(id)).target_trusted));
    expect(trust).toEqual([1, 0, 0, 1, 1]);
  });

  it('refuses a region stored before the rule at request time: no connection, no token exchange, no charge; the test says the rule', async () => {
    const id = await addChannel(h.root, { name: 'vertex-old', type: 41, key: vertexKey, other: 'us-east5', models: V3 });
    // A row written before the rule existed (or straight into the database).
    await h.server.ctx.db.db.updateTable('channels').set({ other: `127.0.0.1:${listenerPort}/x?` }).where('id', '=', id).execute();
    h.server.ctx.relay.channels.invalidate();
    const tokens = tokenRequests();
    expect((await admin.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: en('CHANNEL_TARGET_VERTEX_REGION') });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: V3, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as { status: number; error: Record<string, unknown> };
    expect(err.status).toBe(500);
    expect(err.error).toMatchObject({ code: 'channel_target_invalid' });
    expect(String(err.error.message)).toMatch(/^Vertex AI channel #\d+: its region is not a region name/);
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toEqual([]);
    expect(tokenRequests()).toBe(tokens);
    expect(connections).toBe(0);
  });
});
