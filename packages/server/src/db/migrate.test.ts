import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { createTestDatabase, testDbKinds, type TestDatabase } from '../test-support/test-db.js';
import { insertReturningId, num, openDb, type Db } from './client.js';
import { migrateToLatest } from './migrate.js';

const TABLES = ['users', 'tokens', 'channels', 'abilities', 'options', 'redemptions', 'logs', 'midjourneys', 'tasks', 'top_ups', 'quota_data', 'sessions'] as const;

describe.each(testDbKinds())('data layer on %s', (kind) => {
  let database: TestDatabase;
  let handle: Db;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    handle = await openDb(loadConfig(database.env));
  });
  afterAll(async () => {
    await handle?.destroy();
    await database?.drop();
  });

  it('migrates an empty database, and a second run applies nothing', async () => {
    const first = await migrateToLatest(handle);
    expect(first[0]).toBe('0001-initial');
    expect(await migrateToLatest(handle)).toEqual([]);
    const tables = (await handle.db.introspection.getTables()).map((t) => t.name);
    for (const t of TABLES) expect(tables).toContain(t);
  });

  it('returns generated ids on insert and round-trips reserved-word columns', async () => {
    const id1 = await insertReturningId(kind, handle.db.insertInto('tokens').values({ user_id: 1, key: 'a'.repeat(48), group: 'vip', name: 'x' }));
    const id2 = await insertReturningId(kind, handle.db.insertInto('tokens').values({ user_id: 1, key: 'b'.repeat(48), group: '', name: 'y' }));
    expect(id2).toBe(id1 + 1);
    const row = await handle.db.selectFrom('tokens').selectAll().where('id', '=', id1).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ key: 'a'.repeat(48), group: 'vip', expired_time: -1, status: 1, unlimited_quota: 0 });
    expect(typeof row.remain_quota).toBe('number');
  });

  it('enforces unique keys and the abilities primary key', async () => {
    await expect(handle.db.insertInto('tokens').values({ user_id: 2, key: 'a'.repeat(48) }).execute()).rejects.toThrow();
    await handle.db.insertInto('abilities').values({ group: 'default', model: 'gpt-4o', channel_id: 1 }).execute();
    await expect(handle.db.insertInto('abilities').values({ group: 'default', model: 'gpt-4o', channel_id: 1 }).execute()).rejects.toThrow();
  });

  it('keeps large quota values exact and sums them as numbers', async () => {
    const big = 9_000_000_000_000;
    await handle.db.insertInto('logs').values([{ quota: big, other: '{}' }, { quota: 1, other: '{}' }]).execute();
    const r = await handle.db.selectFrom('logs').select((eb) => eb.fn.sum<number>('quota').as('total')).executeTakeFirstOrThrow();
    expect(num(r.total)).toBe(big + 1);
  });
  it('gives top-up orders their credit, payment method and completion time (0007), defaulting on old rows', async () => {
    await handle.db.insertInto('top_ups').values({ user_id: 1, amount: 5, money: 36.5, trade_no: 'USR1NOold', status: 'pending' }).execute();
    await handle.db.insertInto('top_ups').values({ user_id: 1, amount: 2, money: 14.6, trade_no: 'USR1NOnew', status: 'pending', quota: 1_000_000, payment_method: 'alipay' }).execute();
    const rows = await handle.db.selectFrom('top_ups').select(['trade_no', 'quota', 'payment_method', 'complete_time']).orderBy('id').execute();
    expect(rows.map((r) => ({ ...r, quota: num(r.quota), complete_time: num(r.complete_time) }))).toEqual([
      { trade_no: 'USR1NOold', quota: 0, payment_method: '', complete_time: 0 },
      { trade_no: 'USR1NOnew', quota: 1_000_000, payment_method: 'alipay', complete_time: 0 },
    ]);
  });
});
