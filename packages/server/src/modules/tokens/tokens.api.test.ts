import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type ApiClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

describe.each(testDbKinds())('API tokens on %s', (kind) => {
  let srv: TestServer;
  let alice: ApiClient;
  let bob: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    alice = await newUser(srv.url, 'alice');
    bob = await newUser(srv.url, 'bob');
  });
  afterAll(() => srv?.close());

  it('creates a token with a 48-character key returned without sk-', async () => {
    const r = await alice.post('/api/token/', { name: 'main', remain_quota: 500000, expired_time: -1, unlimited_quota: false, model_limits_enabled: false, model_limits: '', allow_ips: '', group: '' });
    expect(r.body.success).toBe(true);
    expect(r.body.data.key).toMatch(/^[0-9a-zA-Z]{48}$/);
    expect(r.body.data).toMatchObject({ name: 'main', status: 1, remain_quota: 500000, expired_time: -1, unlimited_quota: false, model_limits: '' });
  });

  it('creates `count` tokens, extra ones named with a dash and a 6-character suffix', async () => {
    const r = await alice.post('/api/token/', { name: 'batch', remain_quota: 10, count: 3 });
    expect(r.body.data).toHaveLength(3);
    const names = r.body.data.map((t: { name: string }) => t.name);
    expect(names[0]).toBe('batch');
    expect(names[1]).toMatch(/^batch-[0-9a-zA-Z]{6}$/);
    expect(names[2]).toMatch(/^batch-[0-9a-zA-Z]{6}$/);
    expect(new Set(r.body.data.map((t: { key: string }) => t.key)).size).toBe(3);
    expect((await alice.post('/api/token/', { name: 'x', count: 0 })).body.success).toBe(false);
    expect((await alice.post('/api/token/', { name: 'x', count: 101 })).body.success).toBe(false);
  });

  it('validates name, quota, expiry and group', async () => {
    expect((await alice.post('/api/token/', { name: '' })).body.message).toMatch(/required/);
    expect((await alice.post('/api/token/', { name: 'n'.repeat(31) })).body.message).toMatch(/too long/);
    expect((await alice.post('/api/token/', { name: 'neg', remain_quota: -1 })).body.message).toMatch(/negative/);
    expect((await alice.post('/api/token/', { name: 'past', expired_time: 1000 })).body.message).toMatch(/past/);
    expect((await alice.post('/api/token/', { name: 'grp', group: 'svip' })).body.message).toMatch(/not available/);
    expect((await alice.post('/api/token/', { name: 'grp', group: 'vip', unlimited_quota: true })).body.data).toMatchObject({ group: 'vip', unlimited_quota: true });
    expect((await alice.post('/api/token/', { name: 'bad', remain_quota: 'lots' })).body.message).toMatch(/Must be an integer: remain_quota/);
  });

  it('takes IPs and CIDR ranges in the allow list, stores them one per line, and refuses a bad entry by name', async () => {
    const list = '203.0.113.7, 10.0.0.0/8\n2001:db8::/32 ::1';
    const t = (await alice.post('/api/token/', { name: 'ips', remain_quota: 1, allow_ips: list })).body.data;
    expect(t.allow_ips).toBe('203.0.113.7\n10.0.0.0/8\n2001:db8::/32\n::1');
    expect((await alice.get(`/api/token/${t.id}`)).body.data.allow_ips).toBe('203.0.113.7\n10.0.0.0/8\n2001:db8::/32\n::1');

    const en = await alice.post('/api/token/', { name: 'bad-ips', allow_ips: '10.0.0.1\n10.0.0.300\nexample.com' });
    expect(en.body).toEqual({ success: false, message: 'IP allow list entry is not an IP address or CIDR range (e.g. 10.0.0.0/8): 10.0.0.300, example.com' });
    alice.lang = 'zh';
    const zh = await alice.put('/api/token/', { id: t.id, allow_ips: '10.0.0.0/99' });
    alice.lang = 'en';
    expect(zh.body).toEqual({ success: false, message: 'IP 白名单中有无效条目（应为 IP 地址或 CIDR 网段，如 10.0.0.0/8）: 10.0.0.0/99' });
    // A refused edit changes nothing.
    expect((await alice.get(`/api/token/${t.id}`)).body.data.allow_ips).toBe('203.0.113.7\n10.0.0.0/8\n2001:db8::/32\n::1');
    expect((await alice.get('/api/token/search?keyword=bad-ips&token=')).body.data).toEqual([]);
  });

  it('lists with p from 0 and size, newest first, as a plain array', async () => {
    const all = (await alice.get('/api/token/?p=0&size=100')).body.data;
    expect(Array.isArray(all)).toBe(true);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const ids = all.map((t: { id: number }) => t.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    const p0 = (await alice.get('/api/token/?p=0&size=2')).body.data;
    const p1 = (await alice.get('/api/token/?p=1&size=2')).body.data;
    expect(p0).toHaveLength(2);
    expect(p1[0].id).toBe(ids[2]);
  });

  it('searches by name keyword and by key, with or without sk-', async () => {
    const created = (await alice.post('/api/token/', { name: 'findme', remain_quota: 1 })).body.data;
    expect((await alice.get('/api/token/search?keyword=findme&token=')).body.data.map((t: { id: number }) => t.id)).toEqual([created.id]);
    expect((await alice.get(`/api/token/search?keyword=&token=sk-${created.key}`)).body.data[0].id).toBe(created.id);
    // A key that itself starts with s/k characters must still match (the reference trims characters: a bug).
    expect((await alice.get(`/api/token/search?keyword=&token=${created.key.slice(0, 10)}`)).body.data[0].id).toBe(created.id);
  });

  it('never shows one user’s tokens to another', async () => {
    const mine = (await alice.post('/api/token/', { name: 'private', remain_quota: 1 })).body.data;
    expect((await bob.get(`/api/token/${mine.id}`)).body.success).toBe(false);
    expect((await bob.get('/api/token/?p=0&size=100')).body.data).toEqual([]);
    expect((await bob.get(`/api/token/search?keyword=&token=${mine.key}`)).body.data).toEqual([]);
    expect((await bob.put('/api/token/', { id: mine.id, name: 'stolen' })).body.success).toBe(false);
    expect((await bob.put('/api/token/?status_only=true', { id: mine.id, status: 2 })).body.success).toBe(false);
    expect((await bob.del(`/api/token/${mine.id}/`)).body.success).toBe(false);
    expect((await alice.get(`/api/token/${mine.id}`)).body.data.name).toBe('private');
  });

  it('toggles status, refusing to enable an expired or exhausted token until it is fixed', async () => {
    const t = (await alice.post('/api/token/', { name: 'toggle', remain_quota: 100 })).body.data;
    expect((await alice.put('/api/token/?status_only=true', { id: t.id, status: 2 })).body.data.status).toBe(2);
    expect((await alice.put('/api/token/?status_only=true', { id: t.id, status: 1 })).body.data.status).toBe(1);
    expect((await alice.put('/api/token/?status_only=true', { id: t.id, status: 7 })).body.success).toBe(false);

    await srv.ctx.db.db.updateTable('tokens').set({ expired_time: 1000, status: 3 }).where('id', '=', t.id).execute();
    expect((await alice.get(`/api/token/${t.id}`)).body.data.status).toBe(3);
    expect((await alice.put('/api/token/?status_only=true', { id: t.id, status: 1 })).body.message).toMatch(/expired/);
    const fixed = await alice.put('/api/token/', { id: t.id, expired_time: -1 });
    expect(fixed.body.data.status).toBe(1);

    await srv.ctx.quotaLedger.setTokenRemain(t.id, 0);
    await srv.ctx.db.db.updateTable('tokens').set({ status: 4 }).where('id', '=', t.id).execute();
    expect((await alice.put('/api/token/?status_only=true', { id: t.id, status: 1 })).body.message).toMatch(/used up/);
    expect((await alice.put('/api/token/', { id: t.id, unlimited_quota: true })).body.data.status).toBe(1);
  });

  it('updates every editable field and deletes', async () => {
    const t = (await alice.post('/api/token/', { name: 'edit', remain_quota: 5 })).body.data;
    const r = await alice.put('/api/token/', { ...t, name: 'edited', remain_quota: 42, model_limits_enabled: true, model_limits: 'gpt-4o, gpt-4o-mini', allow_ips: '127.0.0.1\n10.0.0.1', group: 'vip' });
    expect(r.body.data).toMatchObject({ name: 'edited', remain_quota: 42, model_limits_enabled: true, model_limits: 'gpt-4o,gpt-4o-mini', allow_ips: '127.0.0.1\n10.0.0.1', group: 'vip', key: t.key });
    expect((await alice.del(`/api/token/${t.id}/`)).body.success).toBe(true);
    expect((await alice.get(`/api/token/${t.id}`)).body.success).toBe(false);
    expect((await alice.del(`/api/token/${t.id}`)).body.success).toBe(false);
  });
});
