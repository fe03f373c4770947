import type { AuditEntry } from '@modelgate/shared/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { auditPage, waitForAudit } from '../../test-support/audit.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/** Any C0/C1 control or bidi formatting character (what must never be stored raw). */
const RAW = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** Every key and string value in a parsed JSON value. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]);
  return [];
}

describe.each(testDbKinds())('audit log: control and bidi characters stored escaped on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  let admin: ApiClient;
  // Shown raw, U+202E makes the super admin read "escadmin" for this actor.
  const actorName = 'esc\u202Enimda\u0007';
  const tag = 'tag\u202Elive\u0007';

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    admin = await newUser(srv.url, 'escadm');
    expect((await root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.success).toBe(true);
    expect((await admin.login('escadm', 'password123')).body.success).toBe(true);
    // How such a name got in before (issue 29: the import CLI skipped the username rules); sessions read it fresh.
    await srv.ctx.db.db.updateTable('users').set({ username: actorName }).where('id', '=', admin.userId!).execute();
  });
  afterAll(() => srv.close());

  it('escapes the actor name, the target id, request values and the user agent; reads back escaped through GET /api/audit/', async () => {
    // A header value's bytes 0x80–0xFF arrive as Latin-1: 0x85 is the C1 control NEL.
    const r = await admin.call('POST', '/api/channel/tag/disabled', { tag }, { 'User-Agent': 'agent\u0085x\tz' });
    expect(r.status).toBe(200);
    const e = await waitForAudit(root, (x) => x.action === 'channel.tag_disable', 'action=channel.tag_disable');
    expect(e).toMatchObject({
      actor_id: admin.userId,
      actor_name: 'esc\\u{202E}nimda\\u{0007}',
      target_type: 'channel_tag',
      target_id: 'tag\\u{202E}live\\u{0007}',
      user_agent: 'agent\\u{0085}x\\u{0009}z',
    });
    expect(e.request).toEqual({ tag: 'tag\\u{202E}live\\u{0007}' });
    // Searching by the raw name finds the escaped entry.
    const byTarget = await auditPage(root, `target=${encodeURIComponent(tag)}`);
    expect(byTarget.items.map((x) => x.id)).toEqual([e.id]);
  });

  it('escapes a name that becomes the target id and a failure message, and keeps every stored column free of raw characters', async () => {
    const name = 'ch\u202Eevil\u2066\u0001x';
    const created = await admin.call('POST', '/api/channel/', { type: 1, name, key: 'sk-escape-test', models: 'gpt-4', groups: ['default'] });
    // The channel rules refuse such a name; the refused call is still recorded, as a failure.
    expect(created.body).toEqual({ success: false, message: expect.stringMatching(/^Must not contain control characters or bidirectional-control characters/) });
    const e: AuditEntry = await waitForAudit(root, (x) => x.action === 'channel.create', 'action=channel.create');
    expect(e.target_id).toBe('ch\\u{202E}evil\\u{2066}\\u{0001}x');
    expect(e.request).toMatchObject({ name: 'ch\\u{202E}evil\\u{2066}\\u{0001}x', key: '******' });
    expect(e.actor_name).toBe('esc\\u{202E}nimda\\u{0007}');
    expect(e).toMatchObject({ success: false, message: created.body.message });

    const rows = await srv.ctx.db.db.selectFrom('audit_logs').selectAll().execute();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      for (const [col, v] of Object.entries(row)) if (typeof v === 'string') expect(RAW.test(v), `${col}: ${JSON.stringify(v)}`).toBe(false);
      // details is JSON, which would carry a raw control as `\u0007`: its parsed keys and values must be clean.
      for (const text of strings(JSON.parse(row.details))) expect(RAW.test(text), `details: ${JSON.stringify(text)}`).toBe(false);
    }
  });
});
