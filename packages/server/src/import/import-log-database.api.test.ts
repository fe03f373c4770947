import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type SqlKind } from '../config/config.js';
import { openDb, openLogDb, type Db } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { reconcile } from '../ledger/reconcile.js';
import { SecretBox } from '../crypto/secret-box.js';
import { createNewApiFixture, FIXTURE_ROWS, type NewApiFixture } from '../test-support/newapi-fixture.js';
import { createTestDatabase, type TestDatabase } from '../test-support/test-db.js';
import { runImport } from './importer.js';
import type { ImportReport } from './report.js';
import { ImportError, openSource, parseSourceDsn } from './source.js';

/**
 * Issue 36 item 4: a new-api that kept its logs in LOG_SQL_DSN (`--from-logs`), imported into a
 * ModelGate that keeps its own there too. new-api's log database holds `logs` alone; its quota_data
 * stays in the main one. ModelGate writes both to its log database, after the accounts commit.
 */
const SECRETS = new SecretBox({ current: 'import-log-database-test' });

/** [new-api main and ModelGate main, new-api logs and ModelGate logs]: each pair on different servers. */
function pairs(): Array<[SqlKind, SqlKind]> {
  const out: Array<[SqlKind, SqlKind]> = [];
  const pg = Boolean(process.env.TEST_PG_URL);
  const my = Boolean(process.env.TEST_MYSQL_URL);
  if (pg && my) out.push(['postgres', 'mysql'], ['mysql', 'postgres']);
  if (pg) out.push(['sqlite', 'postgres']);
  return out;
}

interface Target {
  main: Db;
  logs: Db;
  close(): Promise<void>;
}

async function freshTarget(kind: SqlKind, logKind: SqlKind): Promise<Target> {
  const database: TestDatabase = await createTestDatabase(kind);
  const logDatabase: TestDatabase = await createTestDatabase(logKind);
  const config = loadConfig({ ...database.env, LOG_SQL_DSN: logDatabase.env.SQL_DSN! });
  const main = await openDb(config);
  const logs = (await openLogDb(config))!;
  return {
    main,
    logs,
    async close() {
      await main.destroy();
      await logs.destroy();
      await database.drop();
      await logDatabase.drop();
    },
  };
}

async function importInto(target: Target, from: string, fromLogs: string | undefined, dryRun = false): Promise<ImportReport> {
  const source = await openSource(parseSourceDsn(from));
  const logSource = fromLogs === undefined ? undefined : await openSource(parseSourceDsn(fromLogs));
  try {
    return await runImport(source, target.main, { dryRun, secrets: SECRETS, logSource, logTarget: target.logs });
  } finally {
    await source.close();
    await logSource?.close();
  }
}

const counts = (r: ImportReport, table: string) => {
  const c = r.tables.get(table)!;
  return [c.source, c.imported, c.present, c.skipped];
};

async function count(db: Db, table: 'logs' | 'quota_data' | 'users'): Promise<number> {
  const r = await db.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

describe.each(pairs())('importing new-api on %s with its logs on %s (LOG_SQL_DSN on both sides)', (kind, logKind) => {
  let main: NewApiFixture;
  let logs: NewApiFixture;
  let target: Target;
  let dry: ImportReport;
  let first: ImportReport;
  let second: ImportReport;

  beforeAll(async () => {
    main = await createNewApiFixture(kind, { without: ['logs'] });
    logs = await createNewApiFixture(logKind, { only: ['logs'] });
    target = await freshTarget(kind, logKind);
    dry = await importInto(target, main.from, logs.from, true);
    first = await importInto(target, main.from, logs.from);
    second = await importInto(target, main.from, logs.from);
  });
  afterAll(async () => {
    await target?.close();
    await main?.close();
    await logs?.close();
  });

  it('reads the logs from --from-logs and writes logs and hourly usage to the log database only', async () => {
    expect(counts(first, 'logs')).toEqual([5, 5, 0, 0]);
    expect(counts(first, 'quota_data')).toEqual([3, 3, 0, 0]);
    expect(counts(first, 'users')).toEqual([6, 5, 0, 1]);
    expect(first.notImported.filter((n) => n.startsWith('logs'))).toEqual([]);
    expect(first.notes).toEqual(expect.arrayContaining([`logs read from ${parseSourceDsn(logs.from).display} (new-api's LOG_SQL_DSN)`, "logs and quota data written to ModelGate's log database (LOG_SQL_DSN)"]));

    const rows = await target.logs.db.selectFrom('logs').select(['id', 'user_id', 'created_at', 'type', 'quota', 'content', 'model_name', 'token_id']).orderBy('id').execute();
    expect(rows.map((r) => [Number(r.id), Number(r.user_id), Number(r.created_at), Number(r.type), Number(r.quota), r.content, r.model_name, Number(r.token_id)])).toEqual(
      FIXTURE_ROWS.logs!.map((l) => [l.id, l.user_id, l.created_at, l.type, l.quota, l.content, l.model_name ?? '', l.token_id]),
    );
    // Two of new-api's three rows share (user, model, hour): added together, as in the one-database import.
    expect(await count(target.logs, 'quota_data')).toBe(2);
    const merged = await target.logs.db.selectFrom('quota_data').select(['quota', 'count']).where('user_id', '=', 2).executeTakeFirstOrThrow();
    expect([Number(merged.quota), Number(merged.count)]).toEqual([51_000, 3]);
    expect(await count(target.main, 'logs')).toBe(0);
    expect(await count(target.main, 'quota_data')).toBe(0);
    expect(await count(target.main, 'users')).toBe(5);
    expect(await count(target.logs, 'users')).toBe(0);
    const r = await reconcile(target.main.db);
    expect(r.mismatches).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('a dry run first predicted the same counts and wrote to neither database', () => {
    expect(dry.dryRun).toBe(true);
    for (const table of ['users', 'tokens', 'logs', 'quota_data']) expect(counts(dry, table), table).toEqual(counts(first, table));
  });

  it('a second run finds every log present and imports nothing twice', async () => {
    expect(counts(second, 'logs')).toEqual([5, 0, 5, 0]);
    expect(counts(second, 'users')).toEqual([6, 0, 5, 1]);
    expect(await count(target.logs, 'logs')).toBe(5);
  });

  it('new log rows after the import take ids past the imported ones', async () => {
    await target.logs.db.insertInto('logs').values({ user_id: 2, created_at: 1_800_000_000, type: 4, content: 'after the import', username: 'alice', token_name: '', model_name: '', quota: 0, prompt_tokens: 0, completion_tokens: 0, use_time: 0, is_stream: 0, channel_id: 0, token_id: 0, group: '', other: '', request_id: null }).execute();
    const last = await target.logs.db.selectFrom('logs').select('id').where('content', '=', 'after the import').executeTakeFirstOrThrow();
    expect(Number(last.id)).toBeGreaterThan(5);
  });
});

describe.each(pairs().slice(0, 1))('--from-logs failures (new-api on %s, logs on %s)', (kind, logKind) => {
  let full: NewApiFixture;
  let logs: NewApiFixture;
  beforeAll(async () => {
    full = await createNewApiFixture(kind);
    logs = await createNewApiFixture(logKind, { only: ['logs'] });
  });
  afterAll(async () => {
    await full?.close();
    await logs?.close();
  });

  it("reports the main database's older logs as not imported when --from-logs names where they are", async () => {
    const target = await freshTarget(kind, logKind);
    try {
      const report = await importInto(target, full.from, logs.from);
      expect(counts(report, 'logs')).toEqual([5, 5, 0, 0]);
      expect(report.notImported).toContainEqual(expect.stringMatching(/^logs in .* \(5 rows\): written before new-api's LOG_SQL_DSN was set/));
      expect(await count(target.logs, 'logs')).toBe(5);
    } finally {
      await target.close();
    }
  });

  it('refuses a --from-logs database without a logs table, before writing anything', async () => {
    const target = await freshTarget(kind, logKind);
    const noLogs = await createNewApiFixture(logKind, { only: ['options'] });
    try {
      const failure = importInto(target, full.from, noLogs.from);
      await expect(failure).rejects.toBeInstanceOf(ImportError);
      await expect(failure).rejects.toThrow(/--from-logs: .* has no logs table .*Nothing was written/);
      await migrateToLatest(target.main);
      expect(await count(target.main, 'users')).toBe(0);
    } finally {
      await noLogs.close();
      await target.close();
    }
  });

  it('a failure writing the logs says the accounts were imported, and a second run completes it', async () => {
    const target = await freshTarget(kind, logKind);
    try {
      // A row ModelGate wrote itself holds an imported log's id: the log transaction must refuse it.
      await migrateToLatest(target.logs);
      await target.logs.db.insertInto('logs').values({ id: 3, user_id: 9, created_at: 1, type: 4, content: 'ours', username: 'x', token_name: '', model_name: '', quota: 0, prompt_tokens: 0, completion_tokens: 0, use_time: 0, is_stream: 0, channel_id: 0, token_id: 0, group: '', other: '', request_id: null }).execute();
      await expect(importInto(target, full.from, logs.from)).rejects.toThrow(/^logs #3 already exists in ModelGate .*The accounts, channels and codes were imported; the logs were not/);
      expect(await count(target.main, 'users')).toBe(5);
      expect(await count(target.logs, 'logs')).toBe(1);
      expect(await count(target.logs, 'quota_data')).toBe(0);

      await target.logs.db.deleteFrom('logs').where('id', '=', 3).execute();
      const again = await importInto(target, full.from, logs.from);
      expect(counts(again, 'users')).toEqual([6, 0, 5, 1]);
      expect(counts(again, 'logs')).toEqual([5, 5, 0, 0]);
      expect((await reconcile(target.main.db)).ok).toBe(true);
    } finally {
      await target.close();
    }
  });
});
