import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import type { FastifyRequest } from 'fastify';
import { idempotency } from './idempotency.js';
import { MemoryRateLimitStore } from './rate-limit.js';

/** Two requests sent at once, as a double click or a retrying proxy does. */
function twice<T>(send: () => Promise<T>): Promise<[T, T]> {
  return Promise.all([send(), send()]);
}

describe('idempotency wrapper', () => {
  const req = (key: string, user = 1) => ({ headers: { 'idempotency-key': key }, authUser: { id: user }, ip: '127.0.0.1' }) as unknown as FastifyRequest;

  it('a failure inside the handler frees the key for a retry', async () => {
    const once = idempotency(new MemoryRateLimitStore());
    let runs = 0;
    await expect(once(req('retry-key-1'), 's', async () => { runs++; throw new Error('upstream down'); })).rejects.toThrow('upstream down');
    await expect(once(req('retry-key-1'), 's', async () => ++runs)).resolves.toBe(2);
    await expect(once(req('retry-key-1'), 's', async () => ++runs)).resolves.toBe(2);
  });

  it('a key held by another node is refused cleanly', async () => {
    const shared = new MemoryRateLimitStore();
    const nodeA = idempotency(shared);
    const nodeB = idempotency(shared);
    await nodeA(req('shared-key-1'), 's', async () => 'a');
    await expect(nodeB(req('shared-key-1'), 's', async () => 'b')).rejects.toMatchObject({ code: 'DUPLICATE_SUBMISSION' });
    await expect(nodeB(req('shared-key-1', 2), 's', async () => 'b')).resolves.toBe('b');
  });
});

describe('Idempotency-Key on creating routes', () => {
  let srv: TestServer;
  let root: ApiClient;
  beforeAll(async () => {
    srv = await startTestServer();
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  it('two concurrent token creations with one key make one token and answer it twice', async () => {
    const body = { name: 'twice-token', remain_quota: 100, expired_time: -1, unlimited_quota: true };
    const [a, b] = await twice(() => root.call('POST', '/api/token/', body, { 'Idempotency-Key': 'token-key-0001' }));
    expect(a.body.success).toBe(true);
    expect(b.body).toEqual(a.body);
    const list = await root.get('/api/token/search?keyword=twice-token');
    expect(list.body.data).toHaveLength(1);
    // A new submission (new key) creates again, as the user asked.
    await root.call('POST', '/api/token/', body, { 'Idempotency-Key': 'token-key-0002' });
    expect((await root.get('/api/token/search?keyword=twice-token')).body.data).toHaveLength(2);
  });

  it('two concurrent redemption batches with one key create one batch', async () => {
    const body = { name: 'twice-codes', quota: 1000, count: 3 };
    const [a, b] = await twice(() => root.call('POST', '/api/redemption/', body, { 'Idempotency-Key': 'codes-key-0001' }));
    expect(a.body.success).toBe(true);
    expect(a.body.data).toHaveLength(3);
    expect(b.body.data).toEqual(a.body.data);
    const list = await root.get('/api/redemption/search?keyword=twice-codes');
    expect(list.body.data.total ?? list.body.data.items?.length).toBe(3);
  });

  it('a double sign-up with one key succeeds once, not "success" plus "already exists"', async () => {
    const anon = new ApiClient(srv.url);
    const body = { username: 'twice_user', password: 'Tr1cky-pass-42', password2: 'Tr1cky-pass-42' };
    const [a, b] = await twice(() => anon.call('POST', '/api/user/register', body, { 'Idempotency-Key': 'signup-key-0001' }));
    expect([a.body.success, b.body.success]).toEqual([true, true]);
    expect((await anon.login('twice_user', 'Tr1cky-pass-42')).body.success).toBe(true);
  });

  it('a failed request frees its key; another user cannot replay someone else’s key', async () => {
    const bad = await root.call('POST', '/api/token/', { name: 'x'.repeat(200) }, { 'Idempotency-Key': 'fails-key-0001' });
    expect(bad.body.success).toBe(false);
    const good = await root.call('POST', '/api/token/', { name: 'after-failure', unlimited_quota: true, expired_time: -1 }, { 'Idempotency-Key': 'fails-key-0001' });
    expect(good.body.success).toBe(true);
    const other = new ApiClient(srv.url);
    await other.post('/api/user/register', { username: 'other_user', password: 'Tr1cky-pass-43', password2: 'Tr1cky-pass-43' });
    await other.login('other_user', 'Tr1cky-pass-43');
    const mine = await other.call('POST', '/api/token/', { name: 'others-token', unlimited_quota: true, expired_time: -1 }, { 'Idempotency-Key': 'token-key-0001' });
    expect(mine.body.success).toBe(true);
    expect((await other.get('/api/token/search?keyword=others-token')).body.data).toHaveLength(1);
  });

  it('refuses a malformed key', async () => {
    const r = await root.call('POST', '/api/token/', { name: 'k' }, { 'Idempotency-Key': 'bad key!' });
    expect(r.body).toMatchObject({ success: false });
    expect(r.body.message).toMatch(/Idempotency-Key/);
  });
});
