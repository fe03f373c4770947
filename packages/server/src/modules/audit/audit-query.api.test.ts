import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLogsTable } from '../../db/schema.js';
import { runAuditRetention } from '../../jobs/audit-retention.job.js';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { auditPage, waitForAudit } from '../../test-support/audit.js';
import { capturePino } from '../../test-support/capture-logger.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const DAY = 24 * 3600;

describe.each(testDbKinds())('audit log: reading, access and retention on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  let user: ApiClient;
  let admin: ApiClient;
  const now = Math.floor(Date.now() / 1000);

  const row = (over: Partial<Insertable<AuditLogsTable>>): Insertable<AuditLogsTable> => ({
    created_at: now,
    actor_id: 1,
    actor_name: 'root',
    actor_role: 100,
    ip: '10.0.0.1',
    user_agent: 'ua',
    action: 'option.update',
    target_type: 'option',
    target_id: 'SystemName',
    success: 1,
    message: '',
    details: '{"request":{},"changes":[]}',
    ...over,
  });

  async function seed(rows: Array<Insertable<AuditLogsTable>>): Promise<void> {
    for (let i = 0; i < rows.length; i += 500) await srv.ctx.db.db.insertInto('audit_logs').values(rows.slice(i, i + 500)).execute();
  }

  async function count(where: (r: { created_at: number }) => boolean = () => true): Promise<number> {
    const rows = await srv.ctx.db.db.selectFrom('audit_logs').select('created_at').execute();
    return rows.filter((r) => where({ created_at: Number(r.created_at) })).length;
  }

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    user = await newUser(srv.url, 'auditusr');
    admin = await newUser(srv.url, 'auditadm2');
    expect((await root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.success).toBe(true);
    expect((await admin.login('auditadm2', 'password123')).body.success).toBe(true);
  });
  afterAll(() => srv.close());

  it('only the super admin reads it: anonymous 401, users and admins refused', async () => {
    expect((await new ApiClient(srv.url).get('/api/audit/')).status).toBe(401);
    for (const c of [user, admin]) {
      const r = await c.get('/api/audit/');
      expect(r.body.success).toBe(false);
      expect(r.body.data).toBeUndefined();
    }
    const r = await root.get('/api/audit/');
    expect(r.body).toMatchObject({ success: true, data: { page: 1, page_size: 10 } });
    // The promotion of beforeAll is there, by root, from loopback.
    const promoted = await waitForAudit(root, (e) => e.action === 'user.promote' && e.target_id === String(admin.userId));
    expect(promoted).toMatchObject({ actor_name: 'root', ip: '127.0.0.1', changes: [{ field: 'role', before: 1, after: 10 }] });
  });

  it('filters by actor (name or id), action or family, target, outcome and time; pages by size', async () => {
    const base = now - 10 * DAY;
    await seed([
      row({ created_at: base, actor_id: Number(admin.userId), actor_name: 'auditadm2', actor_role: 10, action: 'channel.create', target_type: 'channel', target_id: 'c-one' }),
      row({ created_at: base + 10, actor_id: Number(admin.userId), actor_name: 'auditadm2', actor_role: 10, action: 'channel.update', target_type: 'channel', target_id: '77' }),
      row({ created_at: base + 20, actor_id: 999, actor_name: 'gone-admin', action: 'user.update', target_type: 'user', target_id: '77', success: 0, message: 'refused' }),
      row({ created_at: base + 30, action: 'option.update', target_id: 'Logo' }),
    ]);
    const window = `start_timestamp=${base}&end_timestamp=${base + 30}`;
    const ids = async (q: string) => (await auditPage(root, `${window}&${q}`)).items.map((e) => `${e.action}:${e.target_id}`);
    expect(await ids('actor=auditadm2')).toEqual(['channel.update:77', 'channel.create:c-one']);
    expect(await ids(`actor=${admin.userId}`)).toEqual(['channel.update:77', 'channel.create:c-one']);
    // A name no user holds any more still finds what that admin did under it.
    expect(await ids('actor=gone-admin')).toEqual(['user.update:77']);
    expect(await ids('action=channel')).toEqual(['channel.update:77', 'channel.create:c-one']);
    expect(await ids('action=channel.create')).toEqual(['channel.create:c-one']);
    expect(await ids('target=77')).toEqual(['user.update:77', 'channel.update:77']);
    expect(await ids('target=77&target_type=channel')).toEqual(['channel.update:77']);
    expect(await ids('success=0')).toEqual(['user.update:77']);
    const early = (await auditPage(root, `start_timestamp=${base}&end_timestamp=${base + 10}`)).items.map((e) => e.target_id);
    expect(early).toEqual(['77', 'c-one']);
    const page2 = await root.get(`/api/audit/?p=2&size=3&${window}`);
    expect(page2.body.data).toMatchObject({ total: 4, page: 2, page_size: 3 });
    expect(page2.body.data.items.map((e: { target_id: string }) => e.target_id)).toEqual(['c-one']);
    expect((await root.get(`/api/audit/?p=1&page_size=2&${window}`)).body.data.items).toHaveLength(2);
    const bad = await root.get('/api/audit/?success=5');
    expect(bad.body.success).toBe(false);
    expect(bad.body.message).toMatch(/success/);
  });

  it('retention keeps 180 days by default, deletes older entries in batches, and 0 keeps everything', async () => {
    await seed(Array.from({ length: 2500 }, (_, i) => row({ created_at: now - 200 * DAY - i, target_id: 'old' })));
    await seed(Array.from({ length: 5 }, (_, i) => row({ created_at: now - 100 * DAY - i, target_id: 'mid' })));
    expect(await runAuditRetention(srv.ctx, undefined, now)).toBe(2500);
    expect(await count((r) => r.created_at < now - 180 * DAY)).toBe(0);
    expect(await count((r) => r.created_at < now - 90 * DAY)).toBe(5);

    expect((await root.put('/api/option/', { key: 'AuditLogRetentionDays', value: '0' })).body.success).toBe(true);
    expect(await runAuditRetention(srv.ctx, undefined, now)).toBe(0);
    expect(await count((r) => r.created_at < now - 90 * DAY)).toBe(5);
    expect((await root.put('/api/option/', { key: 'AuditLogRetentionDays', value: '30' })).body.success).toBe(true);
    // The 100-day-old rows go; the filter case's 10-day-old rows and today's entries stay.
    expect(await runAuditRetention(srv.ctx, undefined, now)).toBe(5);
    expect(await count((r) => r.created_at >= now - 11 * DAY)).toBeGreaterThanOrEqual(4 + 3);
    expect(await count((r) => r.created_at < now - 30 * DAY)).toBe(0);
    for (const value of ['-1', '2.5']) expect((await root.put('/api/option/', { key: 'AuditLogRetentionDays', value })).body.success).toBe(false);
  });
});

describe('audit log: writes off the request path', () => {
  it('a failed write is logged and never fails the admin call', async () => {
    const { log, lines } = capturePino();
    const srv = await startTestServer({ log });
    try {
      const root = await rootClient(srv.url);
      await srv.ctx.db.db.schema.alterTable('audit_logs').renameTo('audit_logs_away').execute();
      const r = await root.put('/api/option/', { key: 'Notice', value: 'hello' });
      expect(r.body.success).toBe(true);
      for (let i = 0; i < 100 && !lines.some((l) => String(l.msg).startsWith('could not write')); i++) await new Promise((res) => setTimeout(res, 20));
      const failed = lines.find((l) => String(l.msg).startsWith('could not write'));
      expect(failed).toMatchObject({ level: 50, actions: ['option.update'] });
      expect(JSON.stringify(failed)).not.toContain('hello');
      await srv.ctx.db.db.schema.alterTable('audit_logs_away').renameTo('audit_logs').execute();
    } finally {
      await srv.close();
    }
  });

  it('entries queued when the server stops are written before it closes', async () => {
    const srv = await startTestServer();
    let closed = false;
    try {
      const root = await rootClient(srv.url);
      // A slow database: each audit insert takes 300 ms, so the rows are still queued when close begins.
      const kysely = srv.ctx.db.db;
      const insertInto = kysely.insertInto.bind(kysely);
      Object.assign(kysely, {
        insertInto: (table: 'audit_logs') => {
          const qb = insertInto(table);
          if (table !== 'audit_logs') return qb;
          return {
            values: (v: Parameters<typeof qb.values>[0]) => {
              const q = qb.values(v);
              return { execute: async () => (await new Promise((r) => setTimeout(r, 300)), q.execute()) };
            },
          };
        },
      });
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => root.put('/api/option/', { key: 'Notice', value: `n${i}` })));
      expect(answers.every((a) => a.body.success)).toBe(true);
      await srv.app.close();
      closed = true;
      const rows = await srv.ctx.db.db.selectFrom('audit_logs').select('action').where('action', '=', 'option.update').execute();
      expect(rows).toHaveLength(20);
    } finally {
      if (!closed) await srv.app.close();
      await srv.close();
    }
  });
});
