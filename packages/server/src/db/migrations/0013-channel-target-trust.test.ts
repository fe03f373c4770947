import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDbKinds, useMigratedDb } from '../../test-support/test-db.js';
import { up } from './0013-channel-target-trust.js';

describe.each(testDbKinds())('migration 0013 on %s', (kind) => {
  const handle = useMigratedDb(kind);
  const trust = async () =>
    (await handle().db.selectFrom('channels').select(['name', 'target_trusted']).orderBy('id').execute()).map((r) => [r.name, Number(r.target_trusted)]);

  it('makes every channel already there untrusted, and one inserted without naming the column trusted', async () => {
    const db = handle().db;
    // The table as 0012 left it, with a channel someone had saved.
    await db.schema.alterTable('channels').dropColumn('target_trusted').execute();
    await (db as unknown as Kysely<{ channels: { name: string; key: string } }>).insertInto('channels').values({ name: 'before-0013', key: 'k' }).execute();
    await up(db as unknown as Kysely<unknown>, kind);
    await db.insertInto('channels').values({ name: 'after-0013', key: 'k' }).execute();
    await db.insertInto('channels').values({ name: 'admin-placed', key: 'k', target_trusted: 0 }).execute();
    expect(await trust()).toEqual([
      ['before-0013', 0],
      ['after-0013', 1],
      ['admin-placed', 0],
    ]);
  });
});
