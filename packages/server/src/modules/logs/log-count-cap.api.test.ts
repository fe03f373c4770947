import { LogType } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient, type ApiClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';
import { LOG_COUNT_CAP } from './logs.repository.js';

/** The log list counts at most LOG_COUNT_CAP rows: past it the total is "at least" and pages still work. */
describe.each(testDbKinds())('log list total on a large table (%s)', (kind) => {
  let server: TestServer;
  let root: ApiClient;
  const now = Math.floor(Date.now() / 1000);
  const extra = 5;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    root = await rootClient(server.url);
    const rows = Array.from({ length: LOG_COUNT_CAP + extra }, (_, i) => ({
      user_id: 1,
      created_at: now - i,
      type: LogType.System,
      content: `row ${i}`,
      username: i < 7 ? 'few' : 'many',
      token_name: 'bulk',
      model_name: '',
      other: '',
    }));
    // Newest first by id, as the list orders: row 0 is inserted last.
    rows.reverse();
    for (let i = 0; i < rows.length; i += 1000) await server.ctx.db.db.insertInto('logs').values(rows.slice(i, i + 1000)).execute();
  }, 120_000);
  afterAll(() => server.close());

  it('caps the count, says so, and still serves the pages past the cap', async () => {
    const first = await root.get('/api/log/?p=1&page_size=10&type=0&token_name=bulk');
    expect(first.body.data).toMatchObject({ total: LOG_COUNT_CAP, total_capped: true, page: 1, page_size: 10 });
    expect(first.body.data.items.map((r: { content: string }) => r.content)).toEqual(Array.from({ length: 10 }, (_, i) => `row ${i}`));
    const pastCap = await root.get(`/api/log/?p=${LOG_COUNT_CAP / 10 + 1}&page_size=10&type=0&token_name=bulk`);
    expect(pastCap.body.data.items).toHaveLength(extra);
    expect(pastCap.body.data.items[extra - 1].content).toBe(`row ${LOG_COUNT_CAP + extra - 1}`);
  });

  it('counts exactly under the cap, with no flag', async () => {
    const few = await root.get('/api/log/?p=1&page_size=10&type=0&username=few');
    expect(few.body.data.total).toBe(7);
    expect(few.body.data).not.toHaveProperty('total_capped');
    const self = await root.get(`/api/log/self?p=1&page_size=10&type=0&token_name=bulk&start_timestamp=${now - 99}&end_timestamp=${now}`);
    expect(self.body.data.total).toBe(100);
    expect(self.body.data).not.toHaveProperty('total_capped');
  });
});
