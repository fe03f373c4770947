import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { openDb, type Db } from '../db/client.js';
import { reconcile } from '../ledger/reconcile.js';
import { ApiClient } from '../test-support/api-client.js';
import { expectedPerCallCharge } from '../test-support/expected-charge.js';
import {
  ALICE_KEY, ALICE_UNLIMITED_KEY, createNewApiFixture, GO_BCRYPT, IMPORTED_MODEL, IMPORTED_MODEL_PRICE, VIP_RATIO, type NewApiFixture,
} from '../test-support/newapi-fixture.js';
import { createTestDatabase, testDbKinds, type TestDatabase } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { CHANNEL_KEY_PURPOSE, optionPurpose, SecretBox } from '../crypto/secret-box.js';
import { runImport } from './importer.js';
import { openSource, parseSourceDsn } from './source.js';
import type { ImportReport } from './report.js';

/** Per table: [in new-api, imported, skipped] of the fixture on a first run (newapi-fixture.ts). */
const FIRST_RUN: Record<string, [number, number, number]> = {
  options: [8, 6, 2],
  users: [6, 5, 1],
  tokens: [7, 5, 2],
  channels: [5, 4, 1],
  abilities: [9, 7, 2],
  redemptions: [3, 3, 0],
  top_ups: [2, 2, 0],
  logs: [5, 5, 0],
  quota_data: [3, 3, 0],
};

/** The key ring of the test server that serves the import afterwards (SESSION_SECRET test-secret). */
const SECRETS = new SecretBox({ current: 'test-secret' });

async function importOnce(fixture: NewApiFixture, target: Db, dryRun = false): Promise<ImportReport> {
  const source = await openSource(parseSourceDsn(fixture.from));
  try {
    return await runImport(source, target, { dryRun, secrets: SECRETS });
  } finally {
    await source.close();
  }
}

const summary = (r: ImportReport) => Object.fromEntries([...r.tables].map(([t, c]) => [t, [c.source, c.imported, c.present, c.skipped]]));

describe.each(testDbKinds())('importing a new-api database on %s', (kind) => {
  let fixture: NewApiFixture;
  let database: TestDatabase;
  let target: Db;
  let first: ImportReport;
  let second: ImportReport;
  /** Once the test server has the database, it closes and drops it. */
  let handedOver = false;

  beforeAll(async () => {
    fixture = await createNewApiFixture(kind);
    database = await createTestDatabase(kind);
    target = await openDb(loadConfig(database.env));
    first = await importOnce(fixture, target);
    second = await importOnce(fixture, target);
  });
  afterAll(async () => {
    if (!handedOver) {
      await target?.destroy();
      await database?.drop();
    }
    await fixture?.close();
  });

  it('imports every table, skipping and reporting what cannot be mapped', () => {
    for (const [table, [source, imported, skipped]] of Object.entries(FIRST_RUN)) {
      expect(summary(first)[table], table).toEqual([source, imported, 0, skipped]);
    }
    const issues = first.issues.map((i) => `${i.table} ${i.row}: ${i.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^options SomeFutureSetting: not an option ModelGate has/),
        expect.stringMatching(/^options RetryTimes: value refused/),
        expect.stringMatching(/^users #6: username is empty: not imported/),
        expect.stringMatching(/^users #3: quota -1200 is below zero/),
        expect.stringMatching(/^tokens #2: remain_quota -20000 is below zero \(an unlimited token/),
        expect.stringMatching(/^tokens #5: its user #6 is not imported/),
        expect.stringMatching(/^tokens #6: its user #99 is not imported/),
        expect.stringMatching(/^channels #4: type 44 \(moka\) is not a channel type ModelGate knows/),
        expect.stringMatching(/^abilities channel #9: 1 row\(s\) of a channel new-api no longer has/),
        expect.stringMatching(/^quota_data : 1 row\(s\) repeat a \(user, model, hour\)/),
      ]),
    );
    expect(issues.join('\n')).not.toContain('smtp-secret');
    expect(first.notImported).toEqual([expect.stringMatching(/^midjourneys \(1 row\): Midjourney task history/)]);
    expect(first.conflicts).toEqual([]);
  });

  it("the dashboard's per-model sums include the imported hours", async () => {
    const perUser = await target.db.selectFrom('quota_data').select(['model_name', 'created_at', 'quota', 'count']).execute();
    const perModel = await target.db.selectFrom('quota_data_models').select(['model_name', 'created_at', 'quota', 'count']).execute();
    expect(perUser.length).toBeGreaterThan(0);
    const sums = new Map<string, { quota: number; count: number }>();
    for (const r of perUser) {
      const k = `${r.model_name}@${r.created_at}`;
      const s = sums.get(k) ?? { quota: 0, count: 0 };
      sums.set(k, { quota: s.quota + Number(r.quota), count: s.count + Number(r.count) });
    }
    expect(new Map(perModel.map((r) => [`${r.model_name}@${r.created_at}`, { quota: Number(r.quota), count: Number(r.count) }]))).toEqual(sums);
  });

  it('imports nothing twice: a second run finds every row present', () => {
    for (const [table, [source, imported, skipped]] of Object.entries(FIRST_RUN)) {
      expect(summary(second)[table], table).toEqual([source, 0, imported, skipped]);
    }
    // What the first run adjusted (a negative balance imported as 0) is not said again for rows it finds present.
    expect(second.issues.filter((i) => i.row === '#3' || i.row === '#2').map((i) => i.table)).toEqual([]);
    expect(second.notes.filter((n) => n.startsWith('opening balances'))).toEqual([]);
  });

  it('brings balances over through opening ledger entries, and the ledger reconciles', async () => {
    const db = target.db;
    const users = await db.selectFrom('users').select(['id', 'quota', 'used_quota', 'aff_quota', 'deleted_at', 'password']).orderBy('id').execute();
    expect(users.map((u) => [Number(u.id), Number(u.quota), Number(u.used_quota), Number(u.aff_quota)])).toEqual([
      [1, 99_000_000, 1_000_000, 0],
      [2, 1_000_000, 250_000, 5_000],
      [3, 0, 3_000, 0],
      [4, 7_777, 100, 0],
      [5, 0, 0, 0],
    ]);
    expect(users[1]!.password).toBe(GO_BCRYPT.hash);
    expect(users[3]!.deleted_at).toBe(Date.UTC(2024, 10, 20, 0, 30, 0) / 1000);
    const tokens = await db.selectFrom('tokens').select(['id', 'key', 'remain_quota', 'used_quota', 'unlimited_quota']).orderBy('id').execute();
    expect(tokens.map((t) => [Number(t.id), Number(t.remain_quota), Number(t.used_quota), Number(t.unlimited_quota)])).toEqual([
      [1, 500_000, 50_000, 0],
      [2, 0, 200_000, 1],
      [3, 1_000, 3_000, 0],
      [4, 700, 100, 0],
      [7, 0, 0, 1],
    ]);
    // Secrets arrive sealed: new-api's plaintext channel keys and secret options are never stored as such.
    const keys = await db.selectFrom('channels').select(['id', 'key']).orderBy('id').execute();
    expect(keys.length).toBe(4);
    for (const k of keys) expect(k.key.startsWith(`enc:v1:${SECRETS.currentKid}:`), `channel #${k.id}`).toBe(true);
    expect(SECRETS.open(CHANNEL_KEY_PURPOSE, keys[0]!.key)).toBe('sk-upstream-openai');
    const smtp = await db.selectFrom('options').select('value').where('key', '=', 'SMTPToken').executeTakeFirstOrThrow();
    expect(smtp.value).not.toContain('smtp-secret');
    expect(SECRETS.open(optionPurpose('SMTPToken'), smtp.value)).toBe('smtp-secret');
    const openings = await db.selectFrom('ledger_entries').select('ref').where('kind', '=', 'opening').execute();
    expect(openings.map((o) => o.ref).sort()).toEqual([...[1, 2, 3, 4, 5].map((i) => `new-api:user:${i}`), ...[1, 2, 3, 4, 7].map((i) => `new-api:token:${i}`)].sort());
    const r = await reconcile(db);
    expect(r.mismatches).toEqual([]);
    expect(r.ok).toBe(true);
  });

  describe('then served by ModelGate', () => {
    let server: TestServer;
    let fake: FakeOpenAI;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      await target.db.updateTable('channels').set({ base_url: fake.url }).where('id', '=', 1).execute();
      await target.destroy();
      handedOver = true;
      server = await startTestServer({ kind, database });
    });
    afterAll(async () => {
      await fake?.close();
      await server?.close();
    });

    it('signs in with the password new-api hashed (Go bcrypt $2a$), and not as a deleted or banned user', async () => {
      const alice = new ApiClient(server.url);
      const ok = await alice.login('alice', GO_BCRYPT.password);
      expect(ok.body).toMatchObject({ success: true, data: { id: 2, username: 'alice', group: 'vip' } });
      expect((await alice.get('/api/user/self')).body.data).toMatchObject({ quota: 1_000_000, used_quota: 250_000, aff_quota: 5_000 });
      expect((await new ApiClient(server.url).login('alice', 'wrong-password')).body.success).toBe(false);
      expect((await new ApiClient(server.url).login('carol', 'abc')).body.success).toBe(false);
      expect((await new ApiClient(server.url).login('bob', 'abc')).body.success).toBe(false);
      expect((await new ApiClient(server.url).login('root', 'abc')).body).toMatchObject({ success: true, data: { role: 100 } });
    });

    it('relays with an imported token and charges the imported price exactly, to the user and the token', async () => {
      const client = new OpenAI({ apiKey: `sk-${ALICE_KEY}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const reply = await client.chat.completions.create({ model: IMPORTED_MODEL, messages: [{ role: 'user', content: 'hello from the old gateway' }] });
      expect(reply.choices[0]!.message.content).toBeTruthy();
      // The channel key was imported sealed; the relay opened it when it loaded the channels.
      expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-upstream-openai');
      expect(server.ctx.options.str('SMTPToken')).toBe('smtp-secret');
      // Price mode: ModelPrice × QuotaPerUnit × the vip group's ratio, all three imported options.
      const charge = expectedPerCallCharge({ modelPrice: IMPORTED_MODEL_PRICE, groupRatio: VIP_RATIO });
      expect(charge).toBe(15_000);
      const db = server.ctx.db.db;
      const user = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', 2).executeTakeFirstOrThrow();
      const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', 1).executeTakeFirstOrThrow();
      expect([Number(user.quota), Number(user.used_quota)]).toEqual([1_000_000 - charge, 250_000 + charge]);
      expect([Number(token.remain_quota), Number(token.used_quota)]).toEqual([500_000 - charge, 50_000 + charge]);
      const log = await db.selectFrom('logs').selectAll().where('user_id', '=', 2).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(log).toMatchObject({ id: 6, type: 2, quota: charge, model_name: IMPORTED_MODEL, token_id: 1 });
      expect((await reconcile(db)).ok).toBe(true);
    });

    it('keeps the other imported tokens working as new-api left them', async () => {
      const unlimited = new OpenAI({ apiKey: `sk-${ALICE_UNLIMITED_KEY}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
      await unlimited.chat.completions.create({ model: IMPORTED_MODEL, messages: [{ role: 'user', content: 'hi' }] });
      const expired = new OpenAI({ apiKey: 'sk-b0bExpiredKey0123456789abcdefghijklmnopqrstuvwxy', baseURL: `${server.url}/v1`, maxRetries: 0 });
      await expect(expired.chat.completions.create({ model: IMPORTED_MODEL, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 401 });
      const deleted = new OpenAI({ apiKey: 'sk-cArolDeletedKey123456789abcdefghijklmnopqrstuvwx', baseURL: `${server.url}/v1`, maxRetries: 0 });
      await expect(deleted.chat.completions.create({ model: IMPORTED_MODEL, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 401 });
    });
  });
});
