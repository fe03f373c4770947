import { Role, UserStatus } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../test-support/api-client.js';
import { startAccessWorld, type AccessWorld } from '../test-support/access-world.js';

/**
 * Issue 22 item 2, the explicit rows: the guard lets a user or an admin in, and then each route
 * must keep them to what is theirs. User A aims at user B's objects; an admin aims at root and at
 * another admin; nobody reads a channel key. Each row checks the answer and the stored state.
 */
describe('objects of another user (IDOR)', () => {
  let w: AccessWorld;
  let a: ApiClient;
  const db = () => w.h.server.ctx.db.db;
  const tokenRow = (id: number) => db().selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
  const userRow = (id: number) => db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** The answer as text: B's secrets must not appear anywhere in it. */
  const text = (r: { body: unknown }) => JSON.stringify(r.body);

  beforeAll(async () => {
    w = await startAccessWorld();
    a = w.clients.user;
  }, 60_000);
  afterAll(() => w?.close());

  describe('tokens', () => {
    it('A cannot read B’s token by id, search or list', async () => {
      const one = await a.get(`/api/token/${w.b.tokenId}`);
      expect(one.body.success).toBe(false);
      for (const path of [`/api/token/${w.b.tokenId}`, `/api/token/search?keyword=&token=${w.b.tokenKey}`, '/api/token/search?keyword=b-key&token=', '/api/token/?p=0&size=100']) {
        const r = await a.get(path);
        expect(text(r), path).not.toContain(w.b.tokenKey);
        expect(text(r), path).not.toContain('"b-key"');
      }
    });

    it('A cannot update, disable or delete B’s token', async () => {
      const before = await tokenRow(w.b.tokenId);
      expect((await a.put('/api/token/', { id: w.b.tokenId, name: 'stolen', unlimited_quota: true, remain_quota: 1 })).body.success).toBe(false);
      expect((await a.put('/api/token/?status_only=true', { id: w.b.tokenId, status: 2 })).body.success).toBe(false);
      expect((await a.del(`/api/token/${w.b.tokenId}`)).body.success).toBe(false);
      expect(await tokenRow(w.b.tokenId)).toEqual(before);
    });

    it('B’s key does not show A its usage through the public key page unless A holds the key', async () => {
      const mine = await w.clients.anonymous.get(`/api/log/token?key=sk-${w.a.tokenKey}`);
      expect(mine.body.success).toBe(true);
      expect(text(mine)).not.toContain('"b-key"');
      const wrong = await w.clients.anonymous.get(`/api/log/token?key=sk-${w.b.tokenKey.slice(0, -1)}${w.b.tokenKey.endsWith('x') ? 'y' : 'x'}`);
      expect(wrong.body.success).toBe(false);
    });
  });

  describe('logs and usage data', () => {
    it('A’s own log, search, stat and data never include B’s rows, whatever the filter', async () => {
      for (const path of ['/api/log/self?p=1&page_size=100', '/api/log/self?p=1&token_name=b-key', '/api/log/self/search?keyword=b-key', '/api/log/self/search?keyword=gpt']) {
        const r = await a.get(path);
        expect(r.body.success, path).toBe(true);
        expect(text(r), path).not.toContain('b-key');
        expect(text(r), path).not.toContain(`"user_id":${w.b.userId}`);
      }
      const stat = await a.get('/api/log/self/stat?token_name=b-key');
      expect(stat.body.data.quota).toBe(0);
      const data = await a.get('/api/data/self');
      expect(text(data)).not.toContain('mx_user_b');
      // Admin-only views stay closed to A (a filter naming B changes nothing).
      expect((await a.get(`/api/log/?p=1&username=mx_user_b`)).body.success).toBe(false);
      expect((await a.get('/api/log/stat?username=mx_user_b')).body.success).toBe(false);
    });
  });

  describe('tasks and drawings', () => {
    it('A’s task lists do not show B’s task or drawing, even asked by id', async () => {
      const tasks = await a.get(`/api/task/self?p=0&task_id=${w.b.taskId}`);
      expect(tasks.body).toMatchObject({ success: true, data: [] });
      const drawings = await a.get(`/api/mj/self/?p=0&mj_id=${w.b.mjId}`);
      expect(drawings.body).toMatchObject({ success: true, data: [] });
      for (const path of ['/api/task/self?p=0', '/api/mj/self/?p=0']) expect(text(await a.get(path))).not.toMatch(/task-b-|mj-b-|b secret prompt/);
      expect((await a.get('/api/task/?p=0')).body.success).toBe(false);
      expect((await a.get('/api/mj/?p=0')).body.success).toBe(false);
    });

    it('A’s API key cannot fetch, list, seed or notify B’s tasks', async () => {
      const key = { authorization: `Bearer sk-${w.a.tokenKey}` };
      const url = w.h.server.url;
      const mjFetch = await fetch(`${url}/mj/task/${w.b.mjId}/fetch`, { headers: key });
      expect(mjFetch.status).toBe(404);
      const seed = await fetch(`${url}/mj/task/${w.b.mjId}/image-seed`, { headers: key });
      expect(seed.status).toBe(404);
      const list = await fetch(`${url}/mj/task/list-by-condition`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ ids: [w.b.mjId] }) });
      expect(await list.json()).toEqual([]);
      const notify = await fetch(`${url}/mj/notify`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ id: w.b.mjId, status: 'FAILURE', failReason: 'x' }) });
      // No API key moves a task any more: only the proxy's signed callback does (relay/mj/mj-notify.ts).
      expect(notify.status).toBe(400);
      const suno = await fetch(`${url}/suno/fetch/${w.b.taskId}`, { headers: key });
      // The reference's answer for a task that is not the caller's: 400 task_not_exist, no data.
      expect(suno.status).toBe(400);
      expect(await suno.json()).toMatchObject({ message: `task_not_exist: ${w.b.taskId}`, data: null });
      const sunoList = await fetch(`${url}/suno/fetch`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ ids: [w.b.taskId] }) });
      expect(JSON.stringify(await sunoList.json())).not.toContain(w.b.taskId);
      const row = await db().selectFrom('midjourneys').selectAll().where('id', '=', w.b.mjRowId).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'SUCCESS', progress: '100%' });
      expect(row.fail_reason ?? '').toBe('');
    });
  });

  describe('top-up orders', () => {
    it('A cannot read B’s order by its trade number, and the admin list stays closed to A', async () => {
      const r = await a.get(`/api/topup/self?trade_no=${w.b.tradeNo}`);
      expect(r.body.success).toBe(false);
      expect(text(r)).not.toContain(w.b.tradeNo.replace('trade-', '"amount"'));
      expect((await a.get('/api/topup/?p=1')).body.success).toBe(false);
      expect((await a.get(`/api/topup/self?trade_no=${w.a.tradeNo}`)).body.success).toBe(true);
    });
  });

  describe('users', () => {
    it('A cannot raise its own role, quota or group, nor edit B through the self route', async () => {
      const before = await userRow(w.a.userId);
      const bBefore = await userRow(w.b.userId);
      await a.put('/api/user/self', { id: w.b.userId, role: Role.Root, quota: 1e12, group: 'vip', status: 1, display_name: 'A again' });
      const after = await userRow(w.a.userId);
      expect({ role: after.role, quota: after.quota, group: after.group }).toEqual({ role: before.role, quota: before.quota, group: before.group });
      expect(after.display_name).toBe('A again');
      expect(await userRow(w.b.userId)).toEqual(bBefore);
    });

    it('an admin cannot view, edit, disable, demote or delete root or another admin', async () => {
      const admin = w.clients.admin;
      for (const id of [1, w.admin2.userId!]) {
        const before = await userRow(id);
        expect((await admin.get(`/api/user/${id}`)).body.success, `view ${id}`).toBe(false);
        expect((await admin.put('/api/user/', { id, display_name: 'owned', password: 'newpassword1', quota: 1 })).body.success, `edit ${id}`).toBe(false);
        for (const action of ['disable', 'demote', 'delete'] as const) {
          expect((await admin.post('/api/user/manage', { id, action })).body.success, `${action} ${id}`).toBe(false);
        }
        expect((await admin.del(`/api/user/${id}`)).body.success, `delete ${id}`).toBe(false);
        expect(await userRow(id)).toEqual(before);
      }
      // The second admin still works.
      expect((await w.admin2.get('/api/user/self')).body.data).toMatchObject({ role: Role.Admin, status: UserStatus.Enabled });
    });

    it('an admin cannot make anyone an admin or root', async () => {
      const admin = w.clients.admin;
      expect((await admin.put('/api/user/', { id: w.b.userId, role: Role.Admin })).body.success).toBe(false);
      expect((await admin.post('/api/user/manage', { id: w.b.userId, action: 'promote' })).body.success).toBe(false);
      expect((await admin.post('/api/user/', { username: 'mx_sneaky', password: 'password123', role: Role.Root })).body.success).toBe(false);
      expect((await userRow(w.b.userId)).role).toBe(Role.Common);
    });

    it('no list shows a password hash or someone else’s access token', async () => {
      await w.clients.user.get('/api/user/token');
      const aToken = (await userRow(w.a.userId)).access_token!;
      expect(aToken).toBeTruthy();
      for (const c of [w.clients.admin, w.clients.root]) {
        for (const path of ['/api/user/?p=1&page_size=100', '/api/user/search?keyword=mx', `/api/user/${w.a.userId}`]) {
          const r = await c.get(path);
          expect(r.body.success, path).toBe(true);
          expect(text(r), path).not.toContain(aToken);
          expect(text(r), path).not.toMatch(/"password"|\$2[aby]\$/);
        }
      }
    });
  });

  describe('channel keys and secrets', () => {
    it('neither an admin nor root reads a channel key back (spec: keys are write-only, `key: ""`)', async () => {
      const stored = (await db().selectFrom('channels').select('key').where('id', '=', w.channelId).executeTakeFirstOrThrow()).key;
      expect(stored).toBeTruthy();
      for (const c of [w.clients.admin, w.clients.root]) {
        for (const path of [`/api/channel/${w.channelId}`, '/api/channel/?p=0&page_size=100', '/api/channel/search?keyword=', '/api/channel/?p=0&tag_mode=true']) {
          const r = await c.get(path);
          expect(r.body.success, path).toBe(true);
          expect(text(r), path).not.toContain(stored);
        }
      }
      expect((await w.clients.user.get(`/api/channel/${w.channelId}`)).body.success).toBe(false);
    });

    it('root’s option list never returns a secret (…Token, …Secret, …Key)', async () => {
      const r = await w.clients.root.get('/api/option/');
      expect(r.body.success).toBe(true);
      expect(text(r)).not.toContain('metrics-secret-for-tests');
      const keys = (r.body.data as Array<{ key: string }>).map((o) => o.key);
      expect(keys.filter((k) => /(Token|Secret|Key)$/.test(k) && k !== 'TurnstileSiteKey')).toEqual([]);
    });
  });
});
