import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type SqlKind } from '../config/config.js';
import { openDb, type Db } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { createNewApiFixture, FIXTURE_ROWS, type NewApiFixture } from '../test-support/newapi-fixture.js';
import { createTestDatabase, testDbKinds, type TestDatabase } from '../test-support/test-db.js';
import { SecretBox } from '../crypto/secret-box.js';
import { runImport } from './importer.js';
import type { ImportReport } from './report.js';
import { ImportError, openSource, parseSourceDsn } from './source.js';

async function importFrom(from: string, target: Db, dryRun = false): Promise<ImportReport> {
  const source = await openSource(parseSourceDsn(from));
  try {
    return await runImport(source, target, { dryRun, secrets: new SecretBox({ current: 'import-input-test' }) });
  } finally {
    await source.close();
  }
}

/** A fresh ModelGate database and a handle on it (not migrated unless asked). */
async function freshTarget(kind: SqlKind, migrate: boolean): Promise<{ database: TestDatabase; db: Db; close(): Promise<void> }> {
  const database = await createTestDatabase(kind);
  const db = await openDb(loadConfig(database.env));
  if (migrate) await migrateToLatest(db);
  return { database, db, close: async () => (await db.destroy(), await database.drop()) };
}

async function rowCounts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['users', 'tokens', 'channels', 'abilities', 'options', 'redemptions', 'top_ups', 'logs', 'quota_data', 'ledger_entries'] as const) {
    const r = await db.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    out[table] = Number(r.n);
  }
  return out;
}

const EMPTY = { users: 0, tokens: 0, channels: 0, abilities: 0, options: 0, redemptions: 0, top_ups: 0, logs: 0, quota_data: 0, ledger_entries: 0 };

describe.each(testDbKinds())('import input and failures on %s', (kind) => {
  let fixture: NewApiFixture;
  beforeAll(async () => {
    fixture = await createNewApiFixture(kind);
  });
  afterAll(() => fixture?.close());

  it('dry run on an empty, unmigrated database: predicts the import and writes nothing, not even migrations', async () => {
    // A column a later new-api added: reported, not imported (and harmless to the other tests here).
    await fixture.exec('ALTER TABLE channels ADD COLUMN param_override text');
    const t = await freshTarget(kind, false);
    try {
      const report = await importFrom(fixture.from, t.db, true);
      expect(report.dryRun).toBe(true);
      expect(report.issues).toContainEqual({ table: 'channels', row: '', message: 'column param_override has no ModelGate field: not imported' });
      expect(report.notes).toEqual(
        expect.arrayContaining([
          'opening balances of 5 user(s): quota 100007777, used_quota 1253100, aff_quota 5000',
          'opening balances of 5 token(s): remain_quota 501700, used_quota 253100',
        ]),
      );
      expect(report.tables.get('users')).toEqual({ source: 6, imported: 5, present: 0, skipped: 1 });
      expect(report.tables.get('logs')).toEqual({ source: 5, imported: 5, present: 0, skipped: 0 });
      expect(report.notes.join('\n')).toMatch(/not migrated yet/);
      expect(report.issues.map((i) => i.row)).toEqual(expect.arrayContaining(['SomeFutureSetting', '#6']));
      expect(await t.db.db.introspection.getTables()).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('dry run on a migrated database: the same counts as the real run that follows, and nothing written before it', async () => {
    const t = await freshTarget(kind, true);
    try {
      const dry = await importFrom(fixture.from, t.db, true);
      expect(await rowCounts(t.db)).toEqual(EMPTY);
      const real = await importFrom(fixture.from, t.db);
      expect([...dry.tables]).toEqual([...real.tables]);
      expect(dry.issues).toEqual(real.issues);
      expect((await rowCounts(t.db)).users).toBe(5);
      // After the import a dry run finds everything present.
      const again = await importFrom(fixture.from, t.db, true);
      expect([...again.tables.values()].every((c) => c.imported === 0)).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('refuses a database without the tables and columns it needs, naming them, and writes nothing', async () => {
    const broken = await createNewApiFixture(kind, { without: ['abilities', 'logs'] });
    const t = await freshTarget(kind, false);
    try {
      await broken.exec(kind === 'mysql' ? 'ALTER TABLE `tokens` DROP COLUMN `remain_quota`' : 'ALTER TABLE tokens DROP COLUMN remain_quota');
      const err = await importFrom(broken.from, t.db).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportError);
      expect((err as Error).message).toMatch(/not a new-api \(v0\.4\.x\) database this importer recognises; missing: column tokens\.remain_quota, table abilities\. Nothing was written\./);
      // logs is optional (new-api can keep it in LOG_SQL_DSN): not named as missing.
      expect((err as Error).message).not.toMatch(/logs/);
      expect(await t.db.db.introspection.getTables()).toEqual([]);
    } finally {
      await t.close();
      await broken.close();
    }
  });

  it('says clearly when the new-api database cannot be read', async () => {
    const unreadable: string[] = [];
    if (kind === 'sqlite') {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newapi-bad-'));
      fs.writeFileSync(path.join(dir, 'not-a-db.db'), 'this is not a database file, just text that is long enough'.repeat(20));
      unreadable.push(path.join(dir, 'missing.db'), `sqlite://${path.join(dir, 'not-a-db.db')}`);
    } else if (kind === 'postgres') {
      const url = new URL(process.env.TEST_PG_URL!);
      url.pathname = '/no_such_newapi_db';
      unreadable.push(url.toString());
    } else {
      const url = new URL(process.env.TEST_MYSQL_URL!);
      unreadable.push(`${decodeURIComponent(url.username)}@tcp(${url.host})/no_such_newapi_db`);
    }
    for (const from of unreadable) {
      const err = await openSource(parseSourceDsn(from)).catch((e: unknown) => e);
      expect(err, from).toBeInstanceOf(ImportError);
      expect((err as Error).message).toMatch(/^cannot read the new-api database/);
    }
  });

  it('rolls everything back when a row fails half-way (a top-up whose trade number ModelGate already has)', async () => {
    const t = await freshTarget(kind, true);
    try {
      const tradeNo = String(FIXTURE_ROWS.top_ups![0]!.trade_no);
      await t.db.db.insertInto('top_ups').values({ id: 100, user_id: 0, amount: 1, money: 1, trade_no: tradeNo, create_time: 1, status: 'success' }).execute();
      const err = await importFrom(fixture.from, t.db).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportError);
      expect((err as Error).message).toMatch(/^importing top_ups failed: .+\. Nothing was written: the import is one transaction and was rolled back\.$/s);
      // Users, tokens, their ledger entries, channels and options were written before top_ups: all gone.
      expect(await rowCounts(t.db)).toEqual({ ...EMPTY, top_ups: 1 });
    } finally {
      await t.close();
    }
  });

  it('refuses to import over rows ModelGate created itself (a root user from a first start), naming them', async () => {
    const t = await freshTarget(kind, true);
    try {
      await t.db.db.insertInto('users').values({ id: 1, username: 'root', password: 'x', role: 100 }).execute();
      const dry = await importFrom(fixture.from, t.db, true);
      expect(dry.conflicts).toEqual([{ table: 'users', row: '#1', message: expect.stringMatching(/a different row has this id in ModelGate \(username root\)/) }]);
      const err = await importFrom(fixture.from, t.db).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/^users #1 already exists in ModelGate and is not the new-api row \(username root\)\. Import into a fresh ModelGate database/);
      expect(await rowCounts(t.db)).toEqual({ ...EMPTY, users: 1 });
    } finally {
      await t.close();
    }
  });
});

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

function cli(file: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ['--conditions=source', '--import', TSX, path.join(ROOT, 'packages/server/src', file), ...args], {
    env: { ...process.env, SQL_DSN: '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('npm run import (the CLI)', () => {
  let fixture: NewApiFixture;
  let dir: string;
  beforeAll(async () => {
    fixture = await createNewApiFixture('sqlite');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-import-cli-'));
  });
  afterAll(async () => {
    await fixture?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('dry-runs, imports, reconciles, and passes ledger:check on the imported database', () => {
    const env = { SQLITE_PATH: path.join(dir, 'modelgate.db') };
    expect(cli('import/cli.ts', [], env)).toMatchObject({ code: 2, err: expect.stringMatching(/--from is required/) });
    expect(cli('import/cli.ts', ['--from', fixture.from, '--from-logs'], env)).toMatchObject({ code: 2, err: expect.stringMatching(/--from-logs needs new-api's log database/) });
    expect(cli('import/cli.ts', ['--from', fixture.from, '--from-logs', `sqlite://${fixture.from}`], env)).toMatchObject({ code: 2, err: expect.stringMatching(/--from-logs names the same database as --from/) });

    const dry = cli('import/cli.ts', ['--from', `sqlite://${fixture.from}`, '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/\(dry run: nothing written\)/);
    expect(dry.out).toMatch(/^users\s+6\s+5\s+0\s+1$/m);
    expect(dry.out).toMatch(/^ {2}options SomeFutureSetting: not an option ModelGate has: not imported$/m);
    expect(fs.existsSync(env.SQLITE_PATH)).toBe(false);

    const real = cli('import/cli.ts', [`--from=${fixture.from}`], env);
    expect(real.err).toBe('');
    expect(real.code).toBe(0);
    expect(real.out).toMatch(/^tokens\s+7\s+5\s+0\s+2$/m);
    expect(real.out).toMatch(/^not imported: midjourneys \(1 row\)/m);
    expect(real.out).toMatch(/^ledger reconciles$/m);

    const check = cli('ledger/cli.ts', [], env);
    expect(check).toMatchObject({ code: 0, out: expect.stringMatching(/checked 5 users and 5 tokens[\s\S]*ledger reconciles/) });

    const again = cli('import/cli.ts', ['--from', fixture.from], env);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/^users\s+6\s+0\s+5\s+1$/m);
  });
});
