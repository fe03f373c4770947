import { LogType } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient, type ApiClient } from '../test-support/api-client.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { runLogRetention } from './log-retention.job.js';

const DAY = 24 * 3600;

describe.each(testDbKinds())('log retention on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  const now = 2_000_000_000;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv.close());

  /** `count` system log rows `ageDays` old, with a marker in their content. */
  async function seed(marker: string, ageDays: number, count: number): Promise<void> {
    const rows = Array.from({ length: count }, (_, i) => ({ user_id: 1, username: 'root', created_at: now - ageDays * DAY - i, type: LogType.System, content: marker, quota: 0 }));
    for (let i = 0; i < rows.length; i += 500) await srv.ctx.db.db.insertInto('logs').values(rows.slice(i, i + 500)).execute();
  }

  async function left(marker: string): Promise<number> {
    const r = await srv.ctx.db.db.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('n')).where('content', '=', marker).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  it('keeps everything while LogRetentionDays is 0 (the default)', async () => {
    await seed('keep-all', 400, 3);
    expect(await runLogRetention(srv.ctx, undefined, now)).toBe(0);
    expect(await left('keep-all')).toBe(3);
  });

  it('deletes what is older than N days, in batches, and nothing newer', async () => {
    await seed('old', 31, 4500); // more than two batches
    await seed('recent', 29, 7);
    expect((await root.put('/api/option/', { key: 'LogRetentionDays', value: '30' })).body.success).toBe(true);
    const deleted = await runLogRetention(srv.ctx, undefined, now);
    expect(deleted).toBe(4500 + 3); // and the 400-day-old rows of the previous case
    expect(await left('old')).toBe(0);
    expect(await left('keep-all')).toBe(0);
    expect(await left('recent')).toBe(7);
  });

  it('stops between batches when its lock is lost (the signal aborts)', async () => {
    await seed('aborted', 40, 5000);
    const ac = new AbortController();
    ac.abort();
    const deleted = await runLogRetention(srv.ctx, ac.signal, now);
    expect(deleted).toBe(2000); // one batch of logs, then it stops (no task tables either)
    expect(await left('aborted')).toBe(3000);
  });

  it('deletes finished task rows past the window too, never an unfinished one', async () => {
    const old = now - 40 * DAY;
    for (const table of ['midjourneys', 'tasks'] as const) {
      await srv.ctx.db.db
        .insertInto(table)
        .values([
          { user_id: 1, submit_time: old, status: 'SUCCESS' },
          { user_id: 1, submit_time: old, status: 'FAILURE' },
          { user_id: 1, submit_time: old, status: 'IN_PROGRESS' },
          { user_id: 1, submit_time: now - DAY, status: 'SUCCESS' },
        ])
        .execute();
    }
    await runLogRetention(srv.ctx, undefined, now);
    for (const table of ['midjourneys', 'tasks'] as const) {
      const rows = await srv.ctx.db.db.selectFrom(table).select(['status', 'submit_time']).orderBy('id').execute();
      expect(rows.map((r) => [r.status, Number(r.submit_time) === old])).toEqual([
        ['IN_PROGRESS', true],
        ['SUCCESS', false],
      ]);
    }
  });

  it('refuses a negative or fractional value with the field named', async () => {
    for (const value of ['-1', '1.5', 'ten']) {
      const r = await root.put('/api/option/', { key: 'LogRetentionDays', value });
      expect(r.body.success).toBe(false);
      expect(r.body.message).toMatch(/LogRetentionDays/);
    }
  });

  it("the console's clear action deletes the same way and answers the count", async () => {
    await seed('cleared', 10, 2100);
    const target = now - 5 * DAY;
    const before = await srv.ctx.db.db.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('n')).where('created_at', '<', target).executeTakeFirstOrThrow();
    expect(Number(before.n)).toBeGreaterThanOrEqual(2100);
    const r = await root.del(`/api/log/?target_timestamp=${target}`);
    expect(r.body).toMatchObject({ success: true, data: Number(before.n) });
    expect(await left('cleared')).toBe(0);
    expect(await left('aborted')).toBe(0);
  });
});
