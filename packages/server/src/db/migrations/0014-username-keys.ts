import { USERNAME_KEY_MAX_LENGTH, usernameKey } from '@modelgate/shared';
import { sql, type Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { createLogger, type Logger } from '../../log/logger.js';

/**
 * Usernames unique ignoring case (issue 29: `ROOT` could be created beside `root` on SQLite and
 * PostgreSQL, while MariaDB's default collation already compared them as one).
 *
 * `users.username_key` holds the name as compared (`usernameKey` in packages/shared: NFKC and case
 * folded), computed by the server rather than by the database's lower(), which folds only ASCII on
 * SQLite, follows the locale on PostgreSQL and the collation on MySQL; its unique index is the same
 * rule on all three. On MySQL the key column is `utf8mb4_bin`, so a database created with a
 * case- or accent-insensitive default collation does not add its own folding on top.
 *
 * Names that already collide (possible on SQLite and PostgreSQL before this): the oldest account
 * keeps the key; each later one is left without a key, outside the index, and logged by id and
 * name. Nothing is renamed or refused at boot — those accounts still sign in with their exact
 * spelling — but no new account, rename or import can take any spelling of a name in use. The
 * operator renames them (console: Users → Edit), which gives them a key.
 *
 * Also an index on lower(email) on SQLite and PostgreSQL, for the case-insensitive email lookups
 * (sign-in, registration, binding, password reset). MariaDB has no expression indexes; there the
 * lookups scan the users table.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  await upgrade(db, kind, createLogger('warn'));
}

/** `up`, logging to `log` (a test reads what it reports). */
export async function upgrade(db: Kysely<unknown>, kind: SqlKind, log: Pick<Logger, 'warn'>): Promise<void> {
  if (kind === 'mysql') {
    await sql`ALTER TABLE users ADD COLUMN username_key varchar(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL`.execute(db);
  } else {
    await db.schema.alterTable('users').addColumn('username_key', 'varchar(191)').execute();
  }
  const tooLong = await backfill(db);
  const duplicates = await releaseDuplicates(db);
  await db.schema.createIndex('uq_users_username_key').on('users').column('username_key').unique().execute();
  if (kind !== 'mysql') await db.schema.createIndex('idx_users_email_lower').on('users').expression(sql`lower(email)`).execute();

  if (duplicates.length || tooLong.length) {
    log.warn(
      { duplicates, tooLong },
      `migration 0014: ${duplicates.length} account(s) share a username with an older one apart from letter case, ${tooLong.length} have a name too long to compare; ` +
        'they keep signing in with their exact spelling, but rename them (Users → Edit) so every name is unique ignoring case',
    );
  }
}

type Loose = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BATCH = 1000;

/** Every row's key; returns the rows whose key would not fit its column (left without one). */
async function backfill(db: Kysely<unknown>): Promise<Array<{ id: number; username: string }>> {
  const t = db as Loose;
  // One statement for the common case: lower() of an ASCII name is its key on every database.
  await sql`UPDATE users SET username_key = lower(username)`.execute(db);
  const tooLong: Array<{ id: number; username: string }> = [];
  for (let after = 0; ; ) {
    const rows = (await t.selectFrom('users').select(['id', 'username', 'username_key']).where('id', '>', after).orderBy('id').limit(BATCH).execute()) as Array<{
      id: number | string;
      username: string;
      username_key: string | null;
    }>;
    if (!rows.length) return tooLong;
    after = Number(rows[rows.length - 1]!.id);
    for (const r of rows) {
      let key: string | null = usernameKey(r.username);
      if ([...key].length > USERNAME_KEY_MAX_LENGTH) {
        tooLong.push({ id: Number(r.id), username: r.username });
        key = null;
      }
      if (key !== r.username_key) await t.updateTable('users').set({ username_key: key }).where('id', '=', r.id).execute();
    }
  }
}

/** Of each group of rows with one key, all but the oldest lose the key; returns those, with the id that kept it. */
async function releaseDuplicates(db: Kysely<unknown>): Promise<Array<{ id: number; username: string; sameAs: number }>> {
  const t = db as Loose;
  const groups = (await t
    .selectFrom('users')
    .select('username_key')
    .where('username_key', 'is not', null)
    .groupBy('username_key')
    .having(sql`count(*)`, '>', 1)
    .execute()) as Array<{ username_key: string }>;
  const released: Array<{ id: number; username: string; sameAs: number }> = [];
  for (const g of groups) {
    const rows = (await t.selectFrom('users').select(['id', 'username']).where('username_key', '=', g.username_key).orderBy('id').execute()) as Array<{ id: number | string; username: string }>;
    const [kept, ...later] = rows;
    for (const r of later) {
      await t.updateTable('users').set({ username_key: null }).where('id', '=', r.id).execute();
      released.push({ id: Number(r.id), username: r.username, sameAs: Number(kept!.id) });
    }
  }
  return released.sort((a, b) => a.id - b.id);
}
