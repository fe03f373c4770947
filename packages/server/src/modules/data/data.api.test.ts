import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runQuotaDataExport } from '../../jobs/quota-data.job.js';
import { ApiClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { hashPassword } from '../users/password.js';
import { ALL_USERS_CACHE_MS, hourOf } from './quota-data.repository.js';

/** The quota_data export job and the dashboard API after real relay traffic through the OpenAI fake. */
describe.each(testDbKinds())('data dashboard on %s', (kind) => {
  let h: RelayHarness;
  let bob: TestCaller;
  let carol: TestCaller;
  let bobApi: ApiClient;
  const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
  const db = () => h.server.ctx.db.db;

  async function login(c: TestCaller, username: string): Promise<ApiClient> {
    const hash = await hashPassword('password123');
    await db().updateTable('users').set({ username, password: hash }).where('id', '=', c.userId).execute();
    const api = new ApiClient(h.server.url);
    await api.login(username, 'password123');
    return api;
  }

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini,gpt-4' });
    bob = await addCaller(h);
    carol = await addCaller(h);
    bobApi = await login(bob, 'bob');
    await login(carol, 'carol');
    await bob.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await bob.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await bob.client.chat.completions.create({ model: 'gpt-4', messages });
    await carol.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
  });
  afterAll(() => h.close());

  const sums = async (c: TestCaller, model: string) => {
    const rows = (await consumeLogs(h, c.userId)).filter((l) => l.model_name === model);
    return {
      count: rows.length,
      quota: rows.reduce((a, l) => a + Number(l.quota), 0),
      token_used: rows.reduce((a, l) => a + Number(l.prompt_tokens) + Number(l.completion_tokens), 0),
    };
  };

  it('aggregates consume rows per user × model × hour, exactly, and a re-run changes nothing', async () => {
    expect(await runQuotaDataExport(h.server.ctx)).toBe(3);
    const rows = await db().selectFrom('quota_data').selectAll().orderBy('user_id').orderBy('model_name').execute();
    const hour = hourOf(Math.floor(Date.now() / 1000));
    const expectRow = async (c: TestCaller, username: string, model: string) => {
      const row = rows.find((r) => Number(r.user_id) === c.userId && r.model_name === model)!;
      expect({ username: row.username, created_at: Number(row.created_at), count: Number(row.count), quota: Number(row.quota), token_used: Number(row.token_used) }).toEqual({
        username,
        created_at: hour,
        ...(await sums(c, model)),
      });
    };
    await expectRow(bob, 'bob', 'gpt-4o-mini');
    await expectRow(bob, 'bob', 'gpt-4');
    await expectRow(carol, 'carol', 'gpt-4o-mini');
    expect((await sums(bob, 'gpt-4o-mini')).count).toBe(2);

    await runQuotaDataExport(h.server.ctx);
    await runQuotaDataExport(h.server.ctx);
    const again = await db().selectFrom('quota_data').selectAll().orderBy('user_id').orderBy('model_name').execute();
    expect(again.map((r) => ({ ...r, id: 0 }))).toEqual(rows.map((r) => ({ ...r, id: 0 })));
  });

  it('picks up traffic after the last run, and does nothing while data export is off', async () => {
    await bob.client.chat.completions.create({ model: 'gpt-4', messages });
    await h.server.ctx.options.set('DataExportEnabled', 'false');
    expect(await runQuotaDataExport(h.server.ctx)).toBe(0);
    await h.server.ctx.options.set('DataExportEnabled', 'true');
    await runQuotaDataExport(h.server.ctx);
    const row = await db().selectFrom('quota_data').selectAll().where('user_id', '=', bob.userId).where('model_name', '=', 'gpt-4').executeTakeFirstOrThrow();
    expect(Number(row.count)).toBe(2);
    expect(Number(row.quota)).toBe((await sums(bob, 'gpt-4')).quota);
  });

  it('GET /api/data/ sums every user per model and hour, or filters one username; self sees only its own', async () => {
    const now = Math.floor(Date.now() / 1000);
    const q = `start_timestamp=${now - 86400}&end_timestamp=${now + 3600}&default_time=hour`;
    const all = await h.root.get(`/api/data/?username=&${q}`);
    expect(all.body.success).toBe(true);
    const mini = all.body.data.find((r: { model_name: string }) => r.model_name === 'gpt-4o-mini');
    const b = await sums(bob, 'gpt-4o-mini');
    const c = await sums(carol, 'gpt-4o-mini');
    expect(mini).toEqual({ model_name: 'gpt-4o-mini', created_at: hourOf(now), count: b.count + c.count, quota: b.quota + c.quota, token_used: b.token_used + c.token_used });

    const onlyCarol = await h.root.get(`/api/data/?username=carol&${q}`);
    expect(onlyCarol.body.data).toEqual([{ model_name: 'gpt-4o-mini', created_at: hourOf(now), ...c }]);

    const self = await bobApi.get(`/api/data/self/?${q}`);
    expect(self.body.data.map((r: { model_name: string }) => r.model_name).sort()).toEqual(['gpt-4', 'gpt-4o-mini']);
    expect(self.body.data.find((r: { model_name: string }) => r.model_name === 'gpt-4o-mini')).toMatchObject(b);

    // Outside the range: an empty array, never null.
    expect((await h.root.get(`/api/data/?start_timestamp=${now + 7200}&end_timestamp=${now + 9000}`)).body.data).toEqual([]);
  });

  it('refuses a self query over more than a month, and the admin call to a plain user', async () => {
    const now = Math.floor(Date.now() / 1000);
    const long = await bobApi.get(`/api/data/self?start_timestamp=${now - 40 * 86400}&end_timestamp=${now}`);
    expect(long.body).toMatchObject({ success: false, message: 'The time span cannot exceed one month' });
    const admin = await bobApi.get('/api/data/');
    expect(admin.body.success).toBe(false);
  });

  it('answers requests while the first export works through many hours of log', async () => {
    const now = Math.floor(Date.now() / 1000);
    const hours = 48;
    const rows = Array.from({ length: hours * 20 }, (_, i) => ({
      user_id: bob.userId,
      created_at: hourOf(now) - 3600 * (hours + 2) + 180 * i,
      type: 2,
      content: '',
      username: 'bob',
      token_name: 't',
      model_name: 'backfill-model',
      quota: 7,
      other: '',
    }));
    for (let i = 0; i < rows.length; i += 200) await db().insertInto('logs').values(rows.slice(i, i + 200)).execute();
    await db().deleteFrom('quota_data').execute();
    // Counts event-loop turns while the export runs: one per hour at least, not none until the end.
    let turns = 0;
    let running = true;
    const spin = () => {
      turns += 1;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    await runQuotaDataExport(h.server.ctx);
    running = false;
    expect(turns).toBeGreaterThanOrEqual(hours);
    const sum = await db().selectFrom('quota_data').select((eb) => eb.fn.sum<number>('quota').as('q')).where('model_name', '=', 'backfill-model').executeTakeFirstOrThrow();
    expect(Number(sum.q)).toBe(7 * rows.length);
  });

  it('keeps the all-users answer per range of hours: new hours show at the next export here, or within the keep time from elsewhere', async () => {
    const now = Math.floor(Date.now() / 1000);
    const mini = (x: { model_name: string }) => x.model_name === 'gpt-4o-mini';
    /** The answer's gpt-4o-mini count over a range (every row of this test is in the last hours). */
    const total = async (startOffset: number, endOffset: number) => {
      const r = await h.root.get(`/api/data/?start_timestamp=${now - 86400 + startOffset}&end_timestamp=${now + 3600 + endOffset}&username=`);
      expect(r.body.success).toBe(true);
      return (r.body.data as Array<{ model_name: string; count: number }>).filter(mini).reduce((a, x) => a + x.count, 0);
    };
    const stored = async () => {
      const r = await db().selectFrom('quota_data_models').select((eb) => eb.fn.sum<number>('count').as('n')).where('model_name', '=', 'gpt-4o-mini').executeTakeFirstOrThrow();
      return Number(r.n);
    };
    await runQuotaDataExport(h.server.ctx);
    const before = await total(0, 0);
    expect(before).toBe((await sums(bob, 'gpt-4o-mini')).count + (await sums(carol, 'gpt-4o-mini')).count);
    expect(before).toBe(await stored());

    // Traffic exported by this process: the next call sees it, whatever seconds the range names.
    await carol.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await runQuotaDataExport(h.server.ctx);
    expect(await total(7, 1)).toBe(before + 1);
    expect(await total(0, 0)).toBe(before + 1);

    // Rows changed by another node (here: behind this process's back) show once the kept answer expires.
    await db()
      .updateTable('quota_data_models')
      .set((eb) => ({ count: eb('count', '+', 1000) }))
      .where('model_name', '=', 'gpt-4o-mini')
      .execute();
    const changed = await stored();
    expect(changed).toBeGreaterThanOrEqual(before + 1001);
    expect(await total(0, 0)).toBe(before + 1);
    const later = Date.now() + ALL_USERS_CACHE_MS + 1;
    const clock = vi.spyOn(Date, 'now').mockReturnValue(later);
    try {
      expect(await total(0, 0)).toBe(changed);
    } finally {
      clock.mockRestore();
    }
  });
});
