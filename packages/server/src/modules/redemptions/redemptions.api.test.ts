import { LogType, RedemptionStatus } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

describe.each(testDbKinds())('redemption codes on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  const create = async (body: Record<string, unknown>) => (await root.post('/api/redemption/', body)).body;
  const codeRow = (key: string) => srv.ctx.db.db.selectFrom('redemptions').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
  const userRow = (id: number) => srv.ctx.db.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', id).executeTakeFirstOrThrow();
  const topUpLogs = (id: number) => srv.ctx.db.db.selectFrom('logs').selectAll().where('user_id', '=', id).where('type', '=', LogType.Topup).execute();
  const entries = (key: string) => srv.ctx.db.db.selectFrom('ledger_entries').selectAll().where('kind', '=', 'redemption').where('ref', '=', key).execute();

  it('creates a batch of 128-bit random keys, named by the quota when no name is given', async () => {
    const r = await create({ name: '', quota: 100000, count: 3 });
    expect(r.success).toBe(true);
    const keys = r.data as string[];
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(3);
    const rows = await Promise.all(keys.map(codeRow));
    expect(rows.map((row) => [row.name, Number(row.quota), row.status, Number(row.user_id)])).toEqual(Array(3).fill(['$0.20', 100000, 1, 1]));
  });

  it('refuses a bad name, count or quota with its own message', async () => {
    expect((await create({ name: 'x'.repeat(21), quota: 1, count: 1 })).message).toBe('The redemption code name must be 1 to 20 characters');
    expect((await create({ name: 'ok', quota: 1, count: 0 })).message).toBe('You can create 1 to 100 redemption codes at a time');
    expect((await create({ name: 'ok', quota: 1, count: 101 })).message).toBe('You can create 1 to 100 redemption codes at a time');
    expect((await create({ name: 'ok', quota: 0, count: 1 })).message).toBe('The redemption code quota must be greater than 0');
    expect((await create({ name: 'ok', quota: -5, count: 1 })).message).toBe('The redemption code quota must be greater than 0');
    expect((await create({ name: 'ok', quota: 'lots', count: 1 })).message).toMatch(/^Must be an integer: quota/);
    root.lang = 'zh';
    expect((await create({ name: 'ok', quota: 1, count: 200 })).message).toBe('一次只能生成 1 到 100 个兑换码');
    root.lang = 'en';
  });

  it('lists paged (p=0 is page 1), searches by id or name prefix, and reads one', async () => {
    const [key] = (await create({ name: 'spring-sale', quota: 5, count: 1 })).data as string[];
    const row = await codeRow(key!);
    const list = (await root.get('/api/redemption/?p=0&page_size=2')).body.data;
    expect(list).toMatchObject({ page: 1, page_size: 2 });
    expect(list.items).toHaveLength(2);
    expect(list.items[0]).toMatchObject({ id: row.id, name: 'spring-sale', key, status: 1, quota: 5, used_user_id: 0, used_username: '', redeemed_time: 0 });
    const byName = (await root.get('/api/redemption/search?keyword=spring&p=1&page_size=10')).body.data;
    expect(byName.items.map((i: { id: number }) => i.id)).toEqual([row.id]);
    expect(byName.total).toBe(1);
    const byId = (await root.get(`/api/redemption/search?keyword=${row.id}`)).body.data;
    expect(byId.items[0].id).toBe(row.id);
    expect((await root.get(`/api/redemption/${row.id}`)).body.data.key).toBe(key);
    expect((await root.get('/api/redemption/999999')).body.message).toBe('Redemption code does not exist');
    const user = await newUser(srv.url, 'nosy');
    expect((await user.get('/api/redemption/')).body.success).toBe(false);
  });

  it('redeems once: the quota through the ledger, a top-up log with the name, the code marked used by whom and when', async () => {
    const [key] = (await create({ name: 'welcome', quota: 250000, count: 1 })).data as string[];
    const alice = await newUser(srv.url, 'alice');
    const before = await userRow(alice.userId!);
    const r = await alice.post('/api/user/topup', { key: `  ${key}  ` });
    expect(r.body).toEqual({ success: true, message: '', data: 250000 });
    expect(await userRow(alice.userId!)).toEqual({ quota: Number(before.quota) + 250000, used_quota: Number(before.used_quota) });
    const code = await codeRow(key!);
    expect(code).toMatchObject({ status: RedemptionStatus.Used });
    expect(Number(code.used_user_id)).toBe(alice.userId);
    expect(Math.abs(Number(code.redeemed_time) - Date.now() / 1000)).toBeLessThan(30);
    const logs = await topUpLogs(alice.userId!);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ username: 'alice', content: '通过兑换码充值 ＄0.500000 额度，兑换码名称：welcome' });
    expect(Number(logs[0]!.quota)).toBe(250000);
    expect((await entries(key!)).map((e) => [Number(e.user_id), Number(e.quota_delta)])).toEqual([[alice.userId, 250000]]);
    const listed = (await root.get(`/api/redemption/${code.id}`)).body.data;
    expect(listed).toMatchObject({ status: 3, used_user_id: alice.userId, used_username: 'alice' });

    // Again: used, nothing moves.
    expect((await alice.post('/api/user/topup', { key })).body).toMatchObject({ success: false, message: 'This redemption code has already been used' });
    expect(Number((await userRow(alice.userId!)).quota)).toBe(Number(before.quota) + 250000);
  });

  it('refuses an empty, unknown or disabled code with its own message and moves nothing', async () => {
    const bob = await newUser(srv.url, 'bob');
    const [key] = (await create({ name: 'off', quota: 1000, count: 1 })).data as string[];
    const { id } = await codeRow(key!);
    expect((await root.put('/api/redemption/?status_only=true', { id, status: 2 })).body.data).toMatchObject({ id, status: 2 });
    expect((await bob.post('/api/user/topup', { key: '' })).body.message).toBe('Please enter a redemption code');
    expect((await bob.post('/api/user/topup', {})).body.message).toBe('Please enter a redemption code');
    expect((await bob.post('/api/user/topup', { key: 'f'.repeat(32) })).body.message).toBe('Invalid redemption code');
    expect((await bob.post('/api/user/topup', { key })).body.message).toBe('This redemption code has been disabled');
    bob.lang = 'zh';
    expect((await bob.post('/api/user/topup', { key })).body.message).toBe('该兑换码已被禁用');
    expect((await bob.post('/api/user/topup', { key: 'nope' })).body.message).toBe('无效的兑换码');
    expect(Number((await userRow(bob.userId!)).quota)).toBe(0);
    expect(await topUpLogs(bob.userId!)).toEqual([]);
    expect((await codeRow(key!)).status).toBe(RedemptionStatus.Disabled);
  });

  it('edits only unused codes, enables or disables only codes never used, deletes, and deletes the invalid ones', async () => {
    const [a, b, c] = (await create({ name: 'edit-me', quota: 10, count: 3 })).data as string[];
    const [ida, idb, idc] = await Promise.all([a, b, c].map(async (k) => (await codeRow(k!)).id));
    // The reference console sends the whole record back.
    const edited = await root.put('/api/redemption/', { ...(await root.get(`/api/redemption/${ida}`)).body.data, name: 'edited', quota: 20 });
    expect(edited.body.data).toMatchObject({ id: ida, name: 'edited', quota: 20, status: 1 });
    expect((await root.put('/api/redemption/', { id: ida, name: '' })).body.message).toBe('The redemption code name must be 1 to 20 characters');
    expect((await root.put('/api/redemption/', { id: ida, quota: 0 })).body.message).toBe('The redemption code quota must be greater than 0');

    const carol = await newUser(srv.url, 'carol');
    expect((await carol.post('/api/user/topup', { key: a })).body.data).toBe(20);
    expect((await root.put('/api/redemption/', { id: ida, name: 'late', quota: 999 })).body.message).toBe('Only unused redemption codes can be edited');
    expect((await root.put('/api/redemption/?status_only=true', { id: ida, status: 1 })).body.message).toBe('A used redemption code cannot be changed');
    expect((await root.put('/api/redemption/?status_only=true', { id: ida, status: 2 })).body.message).toBe('A used redemption code cannot be changed');
    expect((await root.put('/api/redemption/?status_only=true', { id: idb, status: 3 })).body.message).toBe('A redemption code can only be enabled or disabled');
    expect((await root.put('/api/redemption/?status_only=true', { id: idb, status: 2 })).body.data.status).toBe(2);
    expect((await root.put('/api/redemption/', { id: idb, name: 'x' })).body.message).toBe('Only unused redemption codes can be edited');
    expect((await root.put('/api/redemption/?status_only=true', { id: idb, status: 1 })).body.data.status).toBe(1);
    expect((await root.put('/api/redemption/?status_only=true', { id: idb, status: 2 })).body.data.status).toBe(2);
    expect((await codeRow(a!))).toMatchObject({ name: 'edited' });
    expect(Number((await codeRow(a!)).quota)).toBe(20);

    expect((await root.del(`/api/redemption/${idc}/`)).body).toEqual({ success: true, message: '' });
    expect((await root.del(`/api/redemption/${idc}/`)).body.message).toBe('Redemption code does not exist');
    const before = Number((await srv.ctx.db.db.selectFrom('redemptions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const invalid = Number((await srv.ctx.db.db.selectFrom('redemptions').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '<>', 1).executeTakeFirstOrThrow()).n);
    expect(invalid).toBeGreaterThanOrEqual(2);
    expect((await root.del('/api/redemption/invalid')).body.data).toBe(invalid);
    const after = await srv.ctx.db.db.selectFrom('redemptions').select('status').execute();
    expect(after).toHaveLength(before - invalid);
    expect(after.every((r) => r.status === 1)).toBe(true);
    // Deleting the used code's row leaves its credit where it was.
    expect(Number((await userRow(carol.userId!)).quota)).toBe(20);
  });

  it('credits once when 50 claims of one code race from 5 users', async () => {
    const [key] = (await create({ name: 'race', quota: 777, count: 1 })).data as string[];
    const users = await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5'].map((n) => newUser(srv.url, n)));
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => users[i % 5]!.post('/api/user/topup', { key })));
    const wins = results.filter((r) => r.body.success);
    expect(wins).toHaveLength(1);
    expect(wins[0]!.body.data).toBe(777);
    expect(results.filter((r) => !r.body.success).every((r) => r.body.message === 'This redemption code has already been used')).toBe(true);
    const code = await codeRow(key!);
    const winner = users.find((u) => u.userId === Number(code.used_user_id))!;
    expect(winner).toBeDefined();
    for (const u of users) {
      expect(Number((await userRow(u.userId!)).quota)).toBe(u === winner ? 777 : 0);
      expect(await topUpLogs(u.userId!)).toHaveLength(u === winner ? 1 : 0);
    }
    expect(await entries(key!)).toHaveLength(1);
  });
});
