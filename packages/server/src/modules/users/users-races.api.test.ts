import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

describe.each(testDbKinds())('users racing for one name on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('gives the name to one of several users renaming themselves at once; the others are told it is taken', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, (_, i) => newUser(srv.url, `racer${i}`)));
    const results = await Promise.all(users.map((u) => u.put('/api/user/self', { username: 'winner' })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(results.filter((r) => r.body.success)).toHaveLength(1);
    for (const r of results.filter((x) => !x.body.success)) expect(r.body.message).toMatch(/already exists/);
  });

  it('does the same for admins renaming users at once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push((await newUser(srv.url, `edited${i}`)).userId!);
    const results = await Promise.all(ids.map((id) => root.put('/api/user/', { id, username: 'adminpick' })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(results.filter((r) => r.body.success)).toHaveLength(1);
  });

  it('answers the same invitation code to first calls racing to create it', async () => {
    const u = await newUser(srv.url, 'affracer');
    await srv.ctx.db.db.updateTable('users').set({ aff_code: '' }).where('id', '=', u.userId!).execute();
    const codes = await Promise.all(Array.from({ length: 6 }, () => u.get('/api/user/aff')));
    const distinct = new Set(codes.map((r) => r.body.data));
    expect(distinct.size).toBe(1);
    const stored = await srv.ctx.db.db.selectFrom('users').select('aff_code').where('id', '=', u.userId!).executeTakeFirstOrThrow();
    expect([...distinct][0]).toBe(stored.aff_code);
  });
});
