import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDbKinds, useMigratedDb } from '../../test-support/test-db.js';
import { up } from './0013-channel-target-trust.js';

describe.each(testDbKinds())('migration 0013 on %s', (kind) => {
  const handle = useMigratedDb(kind);
  const trust = async () =>
    (await handle().db.selectFrom('channels').select(['name', 'target_trusted']).orderBy('id').execute()).map((r) => [r.name, Number(r.target_trusted)]);

  it('makes every channel already there that chose an address untrusted, and one inserted without naming the column trusted', async () => {
    const db = handle().db;
    // The table as 0012 left it, with a channel someone had saved.
    await db.schema.alterTable('channels').dropColumn('target_trusted').execute();
    const before = db as unknown as Kysely<{ channels: { name: string; key: string; base_url?: string; setting?: string } }>;
    await before.insertInto('channels').values({ name: 'before-0013', key: 'k', base_url: 'http://llm.lan:8000' }).execute();
    await before.insertInto('channels').values({ name: 'before-0013-proxy', key: 'k', base_url: '', setting: '{"proxy":"http://10.0.0.1:3128"}' }).execute();
    await before.insertInto('channels').values({ name: 'before-0013-own-host', key: 'k', base_url: '  ', setting: '{"force_format":true}' }).execute();
    await up(db as unknown as Kysely<unknown>, kind);
    await db.insertInto('channels').values({ name: 'after-0013', key: 'k' }).execute();
    await db.insertInto('channels').values({ name: 'admin-placed', key: 'k', target_trusted: 0 }).execute();
    expect(await trust()).toEqual([
      ['before-0013', 0],
      ['before-0013-proxy', 0],
      ['before-0013-own-host', 1],
      ['after-0013', 1],
      ['admin-placed', 0],
    ]);
  });
});
