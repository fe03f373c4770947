import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { SecretBox } from '../crypto/secret-box.js';
import { openDb, type Db } from '../db/client.js';
import { reconcile } from '../ledger/reconcile.js';
import { createNewApiFixture, type NewApiFixture } from '../test-support/newapi-fixture.js';
import { quoteIdent } from '../test-support/newapi-schema.js';
import { createTestDatabase, testDbKinds, type TestDatabase } from '../test-support/test-db.js';
import { runImport } from './importer.js';
import type { ImportReport } from './report.js';
import { openSource, parseSourceDsn } from './source.js';

/**
 * Issue 29: the import took a bidi-named second super admin, `OutboundAllowedRanges=0.0.0.0/0`
 * and `ServerAddress=javascript:…` unchanged. It now applies the API's rules (account-rules.ts,
 * and the shared option rules): each bad row is refused or adjusted, and the report says which
 * and why. Rows added to the standard fixture (newapi-fixture.ts: users 1–6, tokens 1–7).
 */
const EXTRA: Record<string, Array<Record<string, string | number | boolean | null>>> = {
  users: [
    { id: 7, username: 'adm\u202eimda', password: 'x', display_name: 'Admin', role: 100, status: 1, quota: 50_000, used_quota: 0, group: 'default', aff_code: 'e777', inviter_id: 0 },
    { id: 8, username: 'ROOT', password: 'x', display_name: 'Root Two', role: 1, status: 1, quota: 10, used_quota: 0, group: 'default', aff_code: 'e888', inviter_id: 0 },
    { id: 9, username: 'mallory', password: 'x', display_name: 'Mal\u202elory', role: 100, status: 1, email: 'ALICE@EXAMPLE.COM', quota: 123_456, used_quota: 700, group: 'vip\u2066', aff_code: 'e999', inviter_id: 0 },
    { id: 10, username: 'ｄａｖｅ', password: 'x', display_name: 'Dave', role: 1, status: 1, quota: 0, used_quota: 0, group: 'default', aff_code: 'e101', inviter_id: 0 },
    { id: 11, username: 'p\u0430ypal', password: 'x', display_name: 'PayPal', role: 1, status: 1, quota: 5, used_quota: 0, group: 'default', aff_code: 'e111', inviter_id: 0 },
  ],
  tokens: [
    { id: 8, user_id: 9, key: 'mAlloryTokenKey1234567890abcdefghijklmnopqrstuvw', status: 1, name: 'tok\u202een', created_time: 1, accessed_time: 1, expired_time: -1, remain_quota: 2_000, unlimited_quota: false, used_quota: 500, group: 'vip\u2066' },
  ],
  options: [
    { key: 'OutboundAllowedRanges', value: '0.0.0.0/0' },
    { key: 'ServerAddress', value: 'javascript:alert(1)' },
    { key: 'TopUpLink', value: 'javascript:alert(document.cookie)' },
    { key: 'UserUsableGroups', value: JSON.stringify({ default: 'Default', 'vip\u202e': 'VIP' }) },
    { key: 'WorkerUrl', value: 'https://worker.example.com/' },
  ],
};

async function addRows(fixture: NewApiFixture): Promise<void> {
  const { kind } = fixture;
  for (const [table, rows] of Object.entries(EXTRA)) {
    for (const row of rows) {
      const cols = Object.keys(row);
      const marks = cols.map((_, i) => (kind === 'postgres' ? `$${i + 1}` : '?'));
      const values = cols.map((c) => (typeof row[c] === 'boolean' && kind !== 'postgres' ? Number(row[c]) : row[c]));
      await fixture.exec(`INSERT INTO ${quoteIdent(kind, table)} (${cols.map((c) => quoteIdent(kind, c)).join(',')}) VALUES (${marks.join(',')})`, values);
    }
  }
}

describe.each(testDbKinds())('the import applies the API rules to accounts and options on %s', (kind) => {
  let fixture: NewApiFixture;
  let database: TestDatabase;
  let target: Db;
  let report: ImportReport;

  beforeAll(async () => {
    fixture = await createNewApiFixture(kind);
    await addRows(fixture);
    database = await createTestDatabase(kind);
    target = await openDb(loadConfig(database.env));
    const source = await openSource(parseSourceDsn(fixture.from));
    try {
      report = await runImport(source, target, { dryRun: false, secrets: new SecretBox({ current: 'import-rules-test' }) });
    } finally {
      await source.close();
    }
  });
  afterAll(async () => {
    await target?.destroy();
    await database?.drop();
    await fixture?.close();
  });

  const issues = (table: string) => report.issues.filter((i) => i.table === table).map((i) => `${i.row}: ${i.message}`);

  it('refuses a bidi-named super admin, ROOT beside root and a mixed-script name, saying why', () => {
    expect(report.tables.get('users')).toEqual({ source: 11, imported: 7, present: 0, skipped: 4 });
    expect(issues('users')).toEqual(
      expect.arrayContaining([
        '#7: username "adm\\u{202e}imda" holds control, bidi or invisible characters: not imported',
        '#8: username "ROOT" is user #1\'s, ignoring case: not imported',
        '#11: username "p\u0430ypal" mixes letters of different scripts: not imported',
      ]),
    );
  });

  it('imports a second super admin as a common user, and cleans what is only shown, saying so', () => {
    expect(issues('users')).toEqual(
      expect.arrayContaining([
        '#9: role 100: a second super admin (user #1 is the super admin): imported as a common user (1); promote by hand if meant',
        '#9: email "ALICE@EXAMPLE.COM" is user #2\'s, ignoring case: imported without one',
        '#9: display_name "Mal\\u{202e}lory" holds control or bidi characters: removed',
        '#9: group "vip\\u{2066}" holds control or bidi characters: imported as "default"',
        '#10: username "ｄａｖｅ" normalised (NFKC) to "dave"',
      ]),
    );
    expect(issues('tokens')).toEqual(
      expect.arrayContaining([
        '#8: name "tok\\u{202e}en" holds control or bidi characters: removed',
        '#8: group "vip\\u{2066}" holds control or bidi characters: imported as the user\'s group',
      ]),
    );
  });

  it('leaves one super admin and no hidden characters in the accounts it wrote', async () => {
    const db = target.db;
    expect((await db.selectFrom('users').select('id').where('role', '=', 100).execute()).map((r) => Number(r.id))).toEqual([1]);
    const rows = await db.selectFrom('users').select(['id', 'username', 'username_key', 'role', 'display_name', 'group', 'email']).where('id', 'in', [9, 10]).orderBy('id').execute();
    expect(rows.map((r) => ({ ...r, id: Number(r.id) }))).toEqual([
      { id: 9, username: 'mallory', username_key: 'mallory', role: 1, display_name: 'Mallory', group: 'default', email: '' },
      { id: 10, username: 'dave', username_key: 'dave', role: 1, display_name: 'Dave', group: 'default', email: '' },
    ]);
    expect(await db.selectFrom('users').select('id').where('id', 'in', [7, 8, 11]).execute()).toEqual([]);
    const token = await db.selectFrom('tokens').select(['name', 'group', 'remain_quota', 'used_quota']).where('id', '=', 8).executeTakeFirstOrThrow();
    expect({ ...token, remain_quota: Number(token.remain_quota), used_quota: Number(token.used_quota) }).toEqual({ name: 'token', group: '', remain_quota: 2_000, used_quota: 500 });
  });

  it('brings the balances of the imported rows, and only theirs, over through the ledger', async () => {
    const db = target.db;
    const mallory = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', 9).executeTakeFirstOrThrow();
    expect([Number(mallory.quota), Number(mallory.used_quota)]).toEqual([123_456, 700]);
    const openings = await db.selectFrom('ledger_entries').select(['ref', 'quota_delta', 'used_delta', 'token_remain_delta', 'token_used_delta']).where('kind', '=', 'opening').where('ref', 'in', ['new-api:user:9', 'new-api:token:8', 'new-api:user:7', 'new-api:user:8', 'new-api:user:11']).orderBy('ref').execute();
    expect(openings.map((o) => [o.ref, Number(o.quota_delta), Number(o.used_delta), Number(o.token_remain_delta), Number(o.token_used_delta)])).toEqual([
      ['new-api:token:8', 0, 0, 2_000, 500],
      ['new-api:user:9', 123_456, 700, 0, 0],
    ]);
    expect(report.notes).toContain('opening balances of 7 user(s): quota 100131233, used_quota 1253800, aff_quota 5000');
    const r = await reconcile(db);
    expect(r.mismatches).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('refuses OutboundAllowedRanges=0.0.0.0/0, a javascript: ServerAddress or link and a bidi group name; takes a valid URL', async () => {
    expect(report.tables.get('options')).toEqual({ source: 13, imported: 7, present: 0, skipped: 6 });
    expect(issues('options')).toEqual(
      expect.arrayContaining([
        "OutboundAllowedRanges: value refused by ModelGate's rules (OPTION_IP_RANGE_TOO_BROAD: OutboundAllowedRanges: 0.0.0.0/0): not imported",
        "ServerAddress: value refused by ModelGate's rules (OPTION_URL_INVALID: ServerAddress): not imported",
        "TopUpLink: value refused by ModelGate's rules (OPTION_URL_INVALID: TopUpLink): not imported",
        'UserUsableGroups: value refused by ModelGate\'s rules (TEXT_CONTROL_CHARS: UserUsableGroups: "vip\\u202e"): not imported',
      ]),
    );
    const stored = await target.db.selectFrom('options').select(['key', 'value']).where('key', 'in', ['OutboundAllowedRanges', 'ServerAddress', 'TopUpLink', 'UserUsableGroups', 'WorkerUrl']).execute();
    expect(stored).toEqual([{ key: 'WorkerUrl', value: 'https://worker.example.com' }]);
  });
});
