import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type ApiClient } from '../test-support/api-client.js';
import { addChannel, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

const REFUSED_EN = 'Your IP is not on the list this token allows';
const REFUSED_ZH = '您的 IP 不在令牌允许访问的列表中';

interface Call {
  status: number;
  body: { error?: { message: string; code: string | null }; choices?: unknown[] };
}

/** One chat through the real relay, as a client on 127.0.0.1 that may claim another address. */
async function chat(h: RelayHarness, key: string, headers: Record<string, string> = {}): Promise<Call> {
  const res = await fetch(`${h.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json', 'accept-language': 'en', ...headers },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, body: (await res.json()) as Call['body'] };
}

/** Registers a user with quota and returns a console client that creates tokens through the API. */
async function owner(h: RelayHarness, name: string): Promise<ApiClient> {
  const c = await newUser(h.server.url, name);
  // Through the ledger, so the balance reconciles when the server closes.
  await h.server.ctx.quotaLedger.move({ kind: 'test', userId: c.userId!, quota: 100_000_000 });
  return c;
}

async function token(c: ApiClient, allowIps: string): Promise<{ id: number; key: string; allow_ips: string }> {
  const r = await c.post('/api/token/', { name: 'ip', unlimited_quota: true, allow_ips: allowIps });
  if (!r.body.success) throw new Error(`token create failed: ${r.body.message}`);
  return r.body.data;
}

describe.each(testDbKinds())('token IP allow lists through the relay on %s', (kind) => {
  let h: RelayHarness;
  let alice: ApiClient;

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini' });
    alice = await owner(h, 'alice');
  });
  afterAll(() => h?.close());

  it('lets an address inside a CIDR range through and refuses one outside with the reference message', async () => {
    const inside = await token(alice, '127.0.0.0/8');
    expect((await chat(h, inside.key)).status).toBe(200);

    const outside = await token(alice, '10.0.0.0/8\n192.168.0.0/16');
    const refused = await chat(h, outside.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toBe(REFUSED_EN);
    const zh = await chat(h, outside.key, { 'accept-language': 'zh-CN' });
    expect(zh.body.error?.message).toBe(REFUSED_ZH);
  });

  it('matches IPv6 ranges, and IPv4 peers against IPv4-mapped ranges', async () => {
    expect((await chat(h, (await token(alice, '2001:db8::/32\n::1')).key)).status).toBe(403);
    expect((await chat(h, (await token(alice, '::ffff:127.0.0.0/104')).key)).status).toBe(200);
  });

  it('accepts a comma list on one line and stores it one per line', async () => {
    // The reference stripped commas and spaces: "10.1.2.3, 127.0.0.1" became one address that never matched.
    const t = await token(alice, '10.1.2.3, 127.0.0.1 ,192.168.1.0/24');
    expect(t.allow_ips).toBe('10.1.2.3\n127.0.0.1\n192.168.1.0/24');
    expect((await chat(h, t.key)).status).toBe(200);
  });

  it('sees an edit of the list on the next request', async () => {
    const t = await token(alice, '127.0.0.1');
    expect((await chat(h, t.key)).status).toBe(200);
    expect((await alice.put('/api/token/', { id: t.id, allow_ips: '10.0.0.1' })).body.success).toBe(true);
    expect((await chat(h, t.key)).status).toBe(403);
    expect((await alice.put('/api/token/', { id: t.id, allow_ips: '' })).body.success).toBe(true);
    expect((await chat(h, t.key)).status).toBe(200);
  });

  it('refuses a bad entry on save, naming it', async () => {
    const bad = await alice.post('/api/token/', { name: 'bad', allow_ips: '127.0.0.1\n10.0.0.0/33' });
    expect(bad.body).toMatchObject({ success: false, message: expect.stringContaining('10.0.0.0/33') });
  });

  it('fails closed on a stored list with no valid entry (rows written before validation)', async () => {
    const t = await token(alice, '');
    await h.server.ctx.db.db.updateTable('tokens').set({ allow_ips: 'not-an-ip' }).where('id', '=', t.id).execute();
    h.server.ctx.relay.auth.invalidateToken(t.id);
    expect((await chat(h, t.key)).status).toBe(403);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const t = await token(alice, '10.1.2.3');
    const r = await chat(h, t.key, { 'x-forwarded-for': '10.1.2.3' });
    expect(r.status).toBe(403);
    expect(r.body.error?.message).toBe(REFUSED_EN);
  });
});

describe('token IP allow lists behind a trusted proxy', () => {
  let h: RelayHarness;
  let bob: ApiClient;

  beforeAll(async () => {
    h = await startRelayHarness({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini' });
    bob = await owner(h, 'bob');
  });
  afterAll(() => h?.close());

  it('uses the forwarded client address, the right-most untrusted one', async () => {
    const t = await token(bob, '10.1.2.0/24');
    expect((await chat(h, t.key, { 'x-forwarded-for': '10.1.2.3' })).status).toBe(200);
    expect((await chat(h, t.key, { 'x-forwarded-for': '10.1.2.3, 127.0.0.1' })).status).toBe(200);
    // The client wrote 10.1.2.3 itself; the proxy appended the address it really came from.
    expect((await chat(h, t.key, { 'x-forwarded-for': '10.1.2.3, 203.0.113.5' })).status).toBe(403);
    expect((await chat(h, t.key)).status).toBe(403);
  });
});
