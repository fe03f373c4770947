import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient, type ApiClient, type ApiResult } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/** Channel inputs of the attack run (issue 10): refused cleanly, never a database 500. */
const BIG = '9223372036854775808';
const HUGE = '99999999999999999999';

function refused(r: ApiResult, message?: RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.success, JSON.stringify(r.body)).toBe(false);
  if (message) expect(r.body.message).toMatch(message);
}

async function rawJson(c: ApiClient, method: string, path: string, json: string): Promise<ApiResult> {
  const res = await fetch(c.baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json', 'accept-language': 'en', 'New-Api-User': String(c.userId), cookie: c.cookie },
    body: json,
  });
  return { status: res.status, body: JSON.parse(await res.text()), headers: res.headers };
}

describe.each(testDbKinds())('channel input validation on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  let id: number;
  const base = { type: 1, name: 'c', key: 'k', models: 'gpt-4', groups: ['default'] };
  const count = async () => (await srv.ctx.db.db.selectFrom('channels').select('id').execute()).length;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    expect((await root.post('/api/channel/', { ...base, name: 'keep', priority: 5, weight: 2 })).body.success).toBe(true);
    id = Number((await srv.ctx.db.db.selectFrom('channels').select('id').executeTakeFirstOrThrow()).id);
  });
  afterAll(() => srv?.close());

  it('refuses out-of-range and fractional numbers on create and update', async () => {
    for (const field of ['type', 'priority', 'weight', 'status', 'auto_ban', 'max_input_tokens']) {
      refused(await rawJson(root, 'POST', '/api/channel/', JSON.stringify(base).replace('}', `,"${field}":${BIG}}`)), /range/);
      refused(await rawJson(root, 'PUT', '/api/channel/', `{"id":${id},"${field}":${BIG}}`), /range/);
      refused(await root.put('/api/channel/', { id, [field]: 1.5 }), /integer/);
    }
    refused(await rawJson(root, 'PUT', '/api/channel/', `{"id":${BIG},"name":"x"}`), /range/);
    expect(await count()).toBe(1);
    const row = await srv.ctx.db.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect([Number(row.priority), Number(row.weight), row.name]).toEqual([5, 2, 'keep']);
  });

  it('refuses NUL, control characters and over-long text in channel fields', async () => {
    refused(await root.post('/api/channel/', { ...base, name: 'a\u0000b' }), /NUL/);
    refused(await root.post('/api/channel/', { ...base, key: 'k\u0000' }), /NUL/);
    refused(await root.post('/api/channel/', { ...base, name: 'n'.repeat(256) }), /long/);
    refused(await root.post('/api/channel/', { ...base, base_url: `https://x.example/${'p'.repeat(1100)}` }), /long/);
    refused(await root.post('/api/channel/', { ...base, models: `gpt-4,${'m'.repeat(300)}` }), /long/);
    refused(await root.post('/api/channel/', { ...base, groups: ['g'.repeat(70)] }), /long/);
    refused(await root.post('/api/channel/', { ...base, tag: 't'.repeat(300) }), /long/);
    refused(await root.put('/api/channel/', { id, name: 'bi\u202edi' }), /control/);
    expect(await count()).toBe(1);
  });

  it('bounds ids in paths, bulk bodies and tag edits', async () => {
    refused(await root.get(`/api/channel/${HUGE}`), /range/);
    refused(await root.del(`/api/channel/${HUGE}`), /range/);
    refused(await root.post(`/api/channel/copy/${HUGE}`), /range/);
    refused(await rawJson(root, 'POST', '/api/channel/batch', `{"ids":[${BIG}]}`), /range/);
    refused(await rawJson(root, 'POST', '/api/channel/batch/tag', `{"ids":[1.5],"tag":"x"}`), /integer/);
    refused(await rawJson(root, 'PUT', '/api/channel/tag', `{"tag":"t","priority":${BIG}}`), /range/);
    refused(await root.put('/api/channel/tag', { tag: 't', weight: 1.5 }), /integer/);
    refused(await root.put('/api/channel/tag', { tag: 't', new_tag: 'x'.repeat(300) }), /long/);
    refused(await root.get(`/api/channel/?p=${HUGE}&page_size=10`), /range/);
    refused(await root.get('/api/channel/search?keyword=a%00'), /NUL/);
    // A digits-only keyword is also tried as an id; one beyond any id must not be a 500 on PostgreSQL.
    const digits = await root.get(`/api/channel/search?keyword=${HUGE}`);
    expect(digits.status).toBe(200);
    if (!digits.body.success) expect(digits.body.message).toMatch(/database refused/);
    expect(await count()).toBe(1);
  });

  it('refuses an id beyond any row on the channel ops routes (declared id schema), and answers database refusals cleanly (errors.ts safety net)', async () => {
    for (const p of [`/api/channel/test/${HUGE}`, `/api/channel/update_balance/${HUGE}`, `/api/channel/fetch_models/${HUGE}`]) {
      const r = await root.get(p);
      refused(r);
      expect(r.body.message, p).toMatch(/range: id/);
    }
    // MySQL's TEXT holds 64 KiB: a longer model mapping is refused by the database itself.
    const r = await root.post('/api/channel/', { ...base, name: 'bigmap', model_mapping: JSON.stringify({ a: 'x'.repeat(70_000) }) });
    expect(r.status).toBe(200);
    if (kind === 'mysql') refused(r, /database refused/);
    else expect(r.body.success).toBe(true);
  });
});
