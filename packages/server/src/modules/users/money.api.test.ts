import { LogType } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

describe.each(testDbKinds())('invitations and admin quota changes on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  const balances = async (id: number) => {
    const r = await srv.ctx.db.db.selectFrom('users').select(['quota', 'used_quota', 'aff_quota', 'aff_history', 'aff_count']).where('id', '=', id).executeTakeFirstOrThrow();
    return { quota: Number(r.quota), used: Number(r.used_quota), aff: Number(r.aff_quota), affHistory: Number(r.aff_history), affCount: Number(r.aff_count) };
  };
  const entries = async (id: number) =>
    (await srv.ctx.db.db.selectFrom('ledger_entries').selectAll().where('user_id', '=', id).orderBy('id').execute()).map((e) => ({
      kind: e.kind,
      quota: Number(e.quota_delta),
      aff: Number(e.aff_delta),
      actor: Number(e.actor_id),
    }));
  const logs = async (id: number, type: number) =>
    (await srv.ctx.db.db.selectFrom('logs').select('content').where('user_id', '=', id).where('type', '=', type).orderBy('id').execute()).map((l) => l.content);

  it('moves exactly the configured amounts when an invitee registers with the inviter’s code', async () => {
    for (const [key, value] of [['QuotaForNewUser', '100000'], ['QuotaForInviter', '1000000'], ['QuotaForInvitee', '300000']]) {
      expect((await root.put('/api/option/', { key, value })).body.success).toBe(true);
    }
    const inviter = await newUser(srv.url, 'inviter');
    const code = (await inviter.get('/api/user/aff')).body.data as string;
    const invitee = new ApiClient(srv.url);
    expect((await invitee.post('/api/user/register', { username: 'invitee', password: 'password123', password2: 'password123', aff_code: code })).body.success).toBe(true);
    await invitee.login('invitee', 'password123');

    expect(await balances(inviter.userId!)).toEqual({ quota: 100000, used: 0, aff: 1000000, affHistory: 1000000, affCount: 1 });
    expect(await balances(invitee.userId!)).toEqual({ quota: 400000, used: 0, aff: 0, affHistory: 0, affCount: 0 });
    expect(await entries(invitee.userId!)).toEqual([
      { kind: 'signup', quota: 100000, aff: 0, actor: 0 },
      { kind: 'invitee', quota: 300000, aff: 0, actor: 0 },
    ]);
    expect((await entries(inviter.userId!)).at(-1)).toEqual({ kind: 'inviter', quota: 0, aff: 1000000, actor: 0 });
    expect((await invitee.get('/api/user/self')).body.data.inviter_id).toBe(inviter.userId);
    const self = (await inviter.get('/api/user/self')).body.data;
    expect(self).toMatchObject({ aff_code: code, aff_count: 1, aff_quota: 1000000, aff_history_quota: 1000000 });

    // Transfer: at least one QuotaPerUnit, never more than is pending; exact amounts move.
    expect((await inviter.post('/api/user/aff_transfer', { quota: 499999 })).body.message).toBe('Transfer amount minimum is: $1.00');
    inviter.lang = 'zh';
    expect((await inviter.post('/api/user/aff_transfer', { quota: 1 })).body.message).toBe('转移额度最小为: $1.00');
    inviter.lang = 'en';
    expect((await inviter.post('/api/user/aff_transfer', { quota: 600000 })).body).toEqual({ success: true, message: '' });
    expect(await balances(inviter.userId!)).toEqual({ quota: 700000, used: 0, aff: 400000, affHistory: 1000000, affCount: 1 });
    expect((await inviter.post('/api/user/aff_transfer', { quota: 500000 })).body.message).toBe('Insufficient affiliate quota');
    expect((await inviter.post('/api/user/aff_transfer', { quota: 'all' })).body.success).toBe(false);
    expect(await balances(inviter.userId!)).toEqual({ quota: 700000, used: 0, aff: 400000, affHistory: 1000000, affCount: 1 });
    expect((await entries(inviter.userId!)).at(-1)).toEqual({ kind: 'aff_transfer', quota: 600000, aff: -600000, actor: 0 });
  });

  it('an unknown invitation code registers the user without rewards', async () => {
    const c = new ApiClient(srv.url);
    expect((await c.post('/api/user/register', { username: 'lonely', password: 'password123', aff_code: 'zzzz-none' })).body.success).toBe(true);
    await c.login('lonely', 'password123');
    expect(await balances(c.userId!)).toEqual({ quota: 100000, used: 0, aff: 0, affHistory: 0, affCount: 0 });
  });

  it('applies an admin’s quota edits through the ledger with a manage log naming the admin and the change', async () => {
    const u = await newUser(srv.url, 'edited');
    expect((await root.put('/api/user/', { id: u.userId, add_quota: 250000 })).body.data.quota).toBe(350000);
    expect((await root.put('/api/user/', { id: u.userId, add_quota: -50000 })).body.data.quota).toBe(300000);
    expect((await root.put('/api/user/', { id: u.userId, quota: 1000000 })).body.data.quota).toBe(1000000);
    // Nothing changes: no entry, no log.
    expect((await root.put('/api/user/', { id: u.userId, quota: 1000000 })).body.success).toBe(true);
    expect((await root.put('/api/user/', { id: u.userId, add_quota: -1000001 })).body.message).toBe('Quota cannot be negative');
    expect((await root.put('/api/user/', { id: u.userId, quota: -1 })).body.message).toBe('Quota cannot be negative');
    expect(await balances(u.userId!)).toMatchObject({ quota: 1000000, used: 0 });
    expect((await entries(u.userId!)).filter((e) => e.kind === 'admin')).toEqual([
      { kind: 'admin', quota: 250000, aff: 0, actor: 1 },
      { kind: 'admin', quota: -50000, aff: 0, actor: 1 },
      { kind: 'admin', quota: 700000, aff: 0, actor: 1 },
    ]);
    expect(await logs(u.userId!, LogType.Manage)).toEqual([
      '管理员 root 为用户增加额度 ＄0.500000 额度，从 ＄0.200000 额度修改为 ＄0.700000 额度',
      '管理员 root 为用户减少额度 ＄0.100000 额度，从 ＄0.700000 额度修改为 ＄0.600000 额度',
      '管理员 root 将用户额度从 ＄0.600000 额度修改为 ＄2.000000 额度',
    ]);
  });
});
