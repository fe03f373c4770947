import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { UsersRepository } from '../../modules/users/users.repository.js';
import { testDbKinds, useMigratedDb } from '../../test-support/test-db.js';
import { capturePino } from '../../test-support/capture-logger.js';
import { isUniqueViolation } from '../dialect.js';
import type { Db } from '../client.js';
import { upgrade } from './0014-username-keys.js';

/** Back to the schema before 0014, as an installation upgrading to it has. */
async function before0014(handle: Db): Promise<void> {
  const { db, kind } = handle;
  if (kind === 'mysql') {
    await sql`DROP INDEX uq_users_username_key ON users`.execute(db);
  } else {
    await sql`DROP INDEX uq_users_username_key`.execute(db);
    await sql`DROP INDEX idx_users_email_lower`.execute(db);
  }
  await sql`ALTER TABLE users DROP COLUMN username_key`.execute(db);
}

describe.each(testDbKinds())('migration 0014 on %s', (kind) => {
  const handle = useMigratedDb(kind);

  it('keys every name; of names that already collide ignoring case the oldest keeps it, the later ones sign in by their exact spelling', async () => {
    const h = handle();
    await before0014(h);
    // Rows as an older version let SQLite and PostgreSQL store them (MySQL: its test databases are utf8mb4_bin).
    const names = ['root', 'ROOT', 'Straße', 'STRASSE', 'ｄａｖｅ', 'Dave', 'erin'];
    for (const [i, username] of names.entries()) {
      await sql`INSERT INTO users (id, username, password, aff_code, email) VALUES (${i + 1}, ${username}, '', ${`c${i}`}, ${i === 6 ? 'Erin@Example.COM' : ''})`.execute(h.db);
    }
    const capture = capturePino('warn');
    await upgrade(h.db as never, kind, capture.log);
    // Said at boot, naming each account to rename: nothing is refused or renamed silently.
    expect(capture.lines).toEqual([
      expect.objectContaining({
        level: 40,
        duplicates: [
          { id: 2, username: 'ROOT', sameAs: 1 },
          { id: 4, username: 'STRASSE', sameAs: 3 },
          { id: 6, username: 'Dave', sameAs: 5 },
        ],
        tooLong: [],
        msg: expect.stringMatching(/^migration 0014: 3 account\(s\) share a username with an older one apart from letter case.*rename them/),
      }),
    ]);

    const rows = await h.db.selectFrom('users').select(['id', 'username', 'username_key']).orderBy('id').execute();
    expect(rows.map((r) => [Number(r.id), r.username, r.username_key])).toEqual([
      [1, 'root', 'root'],
      [2, 'ROOT', null],
      [3, 'Straße', 'strasse'],
      [4, 'STRASSE', null],
      [5, 'ｄａｖｅ', 'dave'],
      [6, 'Dave', null],
      [7, 'erin', 'erin'],
    ]);

    const users = new UsersRepository(h);
    // The later account of a collision still signs in as itself; any other spelling is the oldest one's.
    expect((await users.findActiveByUsername('ROOT'))?.id).toBe(2);
    expect((await users.findActiveByUsername('Root'))?.id).toBe(1);
    expect((await users.findActiveByUsername('dave'))?.id).toBe(5);
    expect((await users.findActiveByUsername('Dave'))?.id).toBe(6);
    expect(await users.usernameTaken('rOOt')).toBe('caseless');
    expect(await users.usernameTaken('ROOT')).toBe('exact');
    // Emails compare ignoring case, through the new index where the database has expression indexes.
    expect((await users.findForLogin('erin@example.com'))?.id).toBe(7);
    expect(await users.emailTaken('ERIN@EXAMPLE.COM')).toBe(true);
    expect(await users.emailTaken('ERIN@EXAMPLE.COM', 7)).toBe(false);

    // The index holds from now on, and a rename gives a left-out account its key.
    await expect(users.insert({ username: 'Erin', password: '' })).rejects.toSatisfy(isUniqueViolation);
    await users.update(2, { username: 'root2' });
    expect((await h.db.selectFrom('users').select('username_key').where('id', '=', 2).executeTakeFirstOrThrow()).username_key).toBe('root2');
  });
});
