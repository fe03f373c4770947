import { AUDIT_MASK } from '@modelgate/shared';
import type { AuditEntry } from '@modelgate/shared/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { changeMap, waitForAudit } from '../../test-support/audit.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const UA = 'audit-test/1.0 (console)';

describe.each(testDbKinds())('audit log: every admin action family on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  let admin: ApiClient;
  let seen = 0;

  /** Root's call with a known user agent (the one the entry must show). */
  const as = (c: ApiClient, method: string, path: string, body?: unknown) => c.call(method, path, body, { 'User-Agent': UA });

  /** The next entry of `action` (newer than every one a previous step matched). */
  async function next(action: string, extra: (e: AuditEntry) => boolean = () => true): Promise<AuditEntry> {
    const e = await waitForAudit(root, (x) => x.id > seen && x.action === action && extra(x), `action=${action}`);
    seen = Math.max(seen, e.id);
    return e;
  }

  /** No stored audit row holds `secret` anywhere. */
  async function neverStored(secret: string): Promise<void> {
    const rows = await srv.ctx.db.db.selectFrom('audit_logs').select(['details', 'target_id', 'message']).execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(JSON.stringify(r)).not.toContain(secret);
  }

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    admin = await newUser(srv.url, 'auditadm');
    expect((await root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.success).toBe(true);
    // A role change ends the user's sessions: sign in again as the admin.
    expect((await admin.login('auditadm', 'password123')).body.success).toBe(true);
  });
  afterAll(() => srv.close());

  it('options: who, when, from where, the value before and after; secret values masked; price tables entry by entry', async () => {
    const started = Math.floor(Date.now() / 1000);
    expect((await as(root, 'PUT', '/api/option/', { key: 'SystemName', value: 'Audit Co' })).body.success).toBe(true);
    const e = await next('option.update', (x) => x.target_id === 'SystemName');
    expect(e).toMatchObject({ actor_id: 1, actor_name: 'root', actor_role: 100, ip: '127.0.0.1', user_agent: UA, target_type: 'option', success: true, message: '' });
    expect(e.created_at).toBeGreaterThanOrEqual(started);
    expect(e.request).toEqual({ key: 'SystemName', value: 'Audit Co' });
    expect(e.changes).toEqual([{ field: 'SystemName', before: 'ModelGate', after: 'Audit Co' }]);

    expect((await as(root, 'PUT', '/api/option/', { key: 'SMTPToken', value: 'smtp-secret-123' })).body.success).toBe(true);
    const s = await next('option.update', (x) => x.target_id === 'SMTPToken');
    expect(s.request).toEqual({ key: 'SMTPToken', value: AUDIT_MASK });
    expect(s.changes).toEqual([{ field: 'SMTPToken', before: '', after: AUDIT_MASK }]);
    expect((await as(root, 'PUT', '/api/option/', { key: 'SMTPToken', value: 'smtp-secret-456' })).body.success).toBe(true);
    expect((await next('option.update', (x) => x.target_id === 'SMTPToken')).changes).toEqual([{ field: 'SMTPToken', before: AUDIT_MASK, after: AUDIT_MASK }]);

    const ratios = JSON.parse((await root.get('/api/option/')).body.data.find((o: { key: string }) => o.key === 'ModelRatio').value) as Record<string, number>;
    const [first] = Object.keys(ratios);
    const changed = { ...ratios, 'gpt-audit': 3, [first!]: 99 };
    expect((await as(root, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(changed) })).body.success).toBe(true);
    const r = await next('option.update', (x) => x.target_id === 'ModelRatio');
    expect(changeMap(r)).toEqual({ [`ModelRatio.${first}`]: [ratios[first!], 99], 'ModelRatio.gpt-audit': [undefined, 3] });

    expect((await as(root, 'POST', '/api/option/rest_model_ratio')).body.success).toBe(true);
    const reset = await next('option.reset_ratios');
    expect(reset.target_id).toBe('ModelRatio,CompletionRatio,ModelPrice,CacheRatio,CreateCacheRatio');
    expect(changeMap(reset)).toMatchObject({ [`ModelRatio.${first}`]: [99, ratios[first!]], 'ModelRatio.gpt-audit': [3, undefined] });
    await neverStored('smtp-secret-');
  });

  it('channels: create, edit, key change, copy, delete and bulk operations; keys never stored', async () => {
    const created = await as(admin, 'POST', '/api/channel/', { type: 1, name: 'audit-ch', key: 'sk-audit-secret-1\nsk-audit-secret-2', models: 'gpt-4', groups: ['default'] });
    expect(created.body.success).toBe(true);
    const c = await next('channel.create');
    expect(c).toMatchObject({ actor_name: 'auditadm', actor_role: 10, target_type: 'channel', target_id: 'audit-ch', success: true });
    expect(c.request).toMatchObject({ type: 1, name: 'audit-ch', key: AUDIT_MASK, models: 'gpt-4' });
    const [a, b] = ((await root.get('/api/channel/search?keyword=audit-ch')).body.data as Array<{ id: number }>).map((x) => x.id).sort((x, y) => x - y);

    expect((await as(root, 'PUT', '/api/channel/', { id: a, type: 1, name: 'audit-ch2', key: 'sk-audit-secret-3', models: 'gpt-4,gpt-4o' })).body.success).toBe(true);
    const edit = await next('channel.update');
    expect(edit.target_id).toBe(String(a));
    expect(changeMap(edit)).toEqual({ name: ['audit-ch', 'audit-ch2'], key: [AUDIT_MASK, AUDIT_MASK], models: ['gpt-4', 'gpt-4,gpt-4o'] });
    // A partial edit from the list (priority), and an edit that keeps the key ("" keeps it): the key is not reported changed.
    expect((await as(root, 'PUT', '/api/channel/', { id: a, priority: 5 })).body.success).toBe(true);
    expect(changeMap(await next('channel.update'))).toEqual({ priority: [0, 5] });
    expect((await as(root, 'PUT', '/api/channel/', { id: a, type: 1, name: 'audit-ch2', key: '', models: 'gpt-4' })).body.success).toBe(true);
    expect(changeMap(await next('channel.update'))).toEqual({ models: ['gpt-4,gpt-4o', 'gpt-4'] });

    const copy = await as(root, 'POST', `/api/channel/copy/${a}`);
    const copyId = copy.body.data.id as number;
    expect((await next('channel.copy')).result).toEqual({ id: copyId });

    expect((await as(root, 'POST', '/api/channel/batch/tag', { ids: [a, b], tag: 'audit-tag' })).body.data).toBe(2);
    expect(await next('channel.tag_set')).toMatchObject({ target_id: `${a},${b}`, result: 2, request: { ids: [a, b], tag: 'audit-tag' } });
    expect((await as(root, 'POST', '/api/channel/tag/disabled', { tag: 'audit-tag' })).body.success).toBe(true);
    expect(await next('channel.tag_disable')).toMatchObject({ target_type: 'channel_tag', target_id: 'audit-tag' });
    expect((await as(root, 'POST', '/api/channel/tag/enabled', { tag: 'audit-tag' })).body.success).toBe(true);
    await next('channel.tag_enable', (x) => x.target_id === 'audit-tag');
    expect((await as(root, 'PUT', '/api/channel/tag', { tag: 'audit-tag', priority: 2 })).body.success).toBe(true);
    expect((await next('channel.tag_update')).request).toEqual({ tag: 'audit-tag', priority: 2 });

    expect((await as(root, 'DELETE', `/api/channel/${copyId}`)).body.success).toBe(true);
    const del = await next('channel.delete');
    expect(changeMap(del)).toMatchObject({ name: ['audit-ch2_copy', undefined], key: [AUDIT_MASK, undefined] });
    expect((await as(root, 'POST', '/api/channel/batch', { ids: [b] })).body.data).toBe(1);
    expect(await next('channel.delete_batch')).toMatchObject({ target_id: String(b), result: 1 });
    expect((await as(root, 'POST', '/api/channel/fix')).body.success).toBe(true);
    expect(typeof (await next('channel.fix_abilities')).result).toBe('number');
    expect((await as(root, 'PUT', '/api/channel/', { id: a, status: 2 })).body.success).toBe(true);
    await next('channel.update');
    expect((await as(root, 'DELETE', '/api/channel/disabled')).body.data).toBe(1);
    expect((await next('channel.delete_disabled')).result).toBe(1);
    await neverStored('sk-audit-secret');
  });

  it('users: create, quota set and adjusted (the ledger moves exactly), password, role, status, deletes', async () => {
    expect((await as(admin, 'POST', '/api/user/', { username: 'auditee', password: 'secretpw123', display_name: 'Aud' })).body.success).toBe(true);
    const created = await next('user.create');
    expect(created).toMatchObject({ target_id: 'auditee', actor_name: 'auditadm', request: { username: 'auditee', password: AUDIT_MASK, display_name: 'Aud' } });
    const id = (await root.get('/api/user/search?keyword=auditee')).body.data.items[0].id as number;

    expect((await as(admin, 'PUT', '/api/user/', { id, quota: 500_000 })).body.success).toBe(true);
    expect(changeMap(await next('user.update'))).toEqual({ quota: [0, 500_000] });
    expect((await as(admin, 'PUT', '/api/user/', { id, add_quota: -1234 })).body.success).toBe(true);
    const adjusted = await next('user.update');
    expect(adjusted.request).toEqual({ id, add_quota: -1234 });
    expect(changeMap(adjusted)).toEqual({ quota: [500_000, 498_766] });
    expect((await root.get(`/api/user/${id}`)).body.data.quota).toBe(498_766);

    expect((await as(admin, 'PUT', '/api/user/', { id, password: 'newpass1234', display_name: 'Aud2' })).body.success).toBe(true);
    const pw = await next('user.update');
    expect(pw.request).toMatchObject({ password: AUDIT_MASK });
    expect(changeMap(pw)).toEqual({ password: [AUDIT_MASK, AUDIT_MASK], display_name: ['Aud', 'Aud2'] });

    const manage = async (action: string, expected: Record<string, [unknown, unknown]>) => {
      expect((await as(root, 'POST', '/api/user/manage', { id, action })).body.success).toBe(true);
      const e = await next(`user.${action}`);
      expect(e.target_id).toBe(String(id));
      expect(changeMap(e)).toMatchObject(expected);
    };
    await manage('promote', { role: [1, 10] });
    await manage('demote', { role: [10, 1] });
    await manage('disable', { status: [1, 2] });
    await manage('enable', { status: [2, 1] });
    await manage('delete', { deleted_at: [null, expect.any(Number)] });

    expect((await root.post('/api/user/', { username: 'auditee2', password: 'secretpw123' })).body.success).toBe(true);
    const id2 = (await root.get('/api/user/search?keyword=auditee2')).body.data.items[0].id as number;
    expect((await as(root, 'DELETE', `/api/user/${id2}`)).body.success).toBe(true);
    const gone = await next('user.hard_delete');
    expect(changeMap(gone)).toMatchObject({ username: ['auditee2', undefined], password: [AUDIT_MASK, undefined] });
    await neverStored('secretpw123');
    await neverStored('newpass1234');
  });

  it('redemptions: a batch (count and quota, never the codes), edit, status, deletes', async () => {
    const made = await as(admin, 'POST', '/api/redemption/', { name: 'audit-red', count: 3, quota: 1000 });
    const keys = made.body.data as string[];
    expect(keys).toHaveLength(3);
    const c = await next('redemption.create');
    expect(c).toMatchObject({ target_id: 'audit-red', request: { name: 'audit-red', count: 3, quota: 1000 } });
    expect(c.result).toBeUndefined();
    const ids = ((await root.get('/api/redemption/search?keyword=audit-red')).body.data.items as Array<{ id: number }>).map((r) => r.id);

    expect((await as(admin, 'PUT', '/api/redemption/', { id: ids[0], name: 'audit-red2', quota: 2000 })).body.success).toBe(true);
    expect(changeMap(await next('redemption.update'))).toEqual({ name: ['audit-red', 'audit-red2'], quota: [1000, 2000] });
    expect((await as(admin, 'PUT', '/api/redemption/?status_only=true', { id: ids[1], status: 2 })).body.success).toBe(true);
    expect(changeMap(await next('redemption.status'))).toEqual({ status: [1, 2] });
    expect((await as(admin, 'DELETE', `/api/redemption/${ids[2]}`)).body.success).toBe(true);
    expect(changeMap(await next('redemption.delete'))).toMatchObject({ name: ['audit-red', undefined], key: [AUDIT_MASK, undefined], quota: [1000, undefined] });
    expect((await as(admin, 'DELETE', '/api/redemption/invalid')).body.data).toBe(1);
    expect((await next('redemption.delete_invalid')).result).toBe(1);
    for (const key of keys) await neverStored(key);
  });

  it('log purge: the cut-off as target, the count as result', async () => {
    const cutoff = Math.floor(Date.now() / 1000) - 3600;
    const r = await as(admin, 'DELETE', `/api/log/?target_timestamp=${cutoff}`);
    expect(r.body.success).toBe(true);
    expect(await next('log.delete')).toMatchObject({ target_type: 'log', target_id: String(cutoff), result: r.body.data, request: { target_timestamp: cutoff } });
  });

  it('failures are recorded with their message, and no change', async () => {
    const refused = await as(admin, 'PUT', '/api/user/', { id: 1, quota: 5 });
    expect(refused.body.success).toBe(false);
    const e = await next('user.update', (x) => !x.success);
    expect(e).toMatchObject({ actor_name: 'auditadm', target_id: '1', success: false, message: refused.body.message, changes: [] });
    // Refused by validation, before the handler ran.
    const invalid = await as(admin, 'POST', '/api/user/manage', { id: 'x', action: 'promote' });
    expect(invalid.body.success).toBe(false);
    expect(await next('user.promote', (x) => !x.success)).toMatchObject({ success: false, message: invalid.body.message });
  });
});
