import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty, defaultZero, TEXT, withId } from './column-types.js';

/**
 * Passkeys (docs/security.md#passkeys): one row per WebAuthn credential a user registered.
 * `credential_hash` is the sha256 (hex) of the credential id and carries the unique index: ids may
 * be up to 1023 bytes (too long for a MySQL index key) and are case-sensitive base64url, which
 * MySQL's default collations would compare ignoring case. `public_key` is the COSE key (base64url,
 * public by nature); `counter` the last signature counter accepted, raised by one conditional
 * update per sign-in so a counter that goes backwards (a cloned authenticator) is refused on every
 * node. `user_handle` is the WebAuthn user id handed to the authenticator (random, the same for
 * all of one user's passkeys), checked against the handle a username-less sign-in returns.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  await withId(kind, db.schema.createTable('passkeys'))
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('credential_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('credential_id', TEXT, (c) => c.notNull())
    .addColumn('public_key', TEXT, (c) => c.notNull())
    .addColumn('user_handle', 'varchar(128)', defaultEmpty)
    .addColumn('counter', 'bigint', defaultZero)
    .addColumn('transports', 'varchar(255)', defaultEmpty)
    .addColumn('name', 'varchar(255)', defaultEmpty)
    .addColumn('backed_up', 'smallint', defaultZero)
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('last_used_at', 'bigint', defaultZero)
    .execute();
  await db.schema.createIndex('idx_passkeys_credential').on('passkeys').column('credential_hash').unique().execute();
  await db.schema.createIndex('idx_passkeys_user').on('passkeys').column('user_id').execute();
}
