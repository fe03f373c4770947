import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultZero, withId } from './column-types.js';

/**
 * TOTP two-factor sign-in (docs/security.md#second-factor). `two_factor` holds one row per user who
 * started or finished enrolment: the secret sealed like channel keys (crypto/secret-box.ts),
 * `enabled` 0 while the enrolment awaits its confirming code, and `last_step`, the last TOTP time
 * step accepted, so a code is taken once (a conditional update decides, on every node). Backup
 * codes are stored as sha256 hashes, one row each; `used_at` is set by the one update that spends it.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  await db.schema
    .createTable('two_factor')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey())
    .addColumn('secret', 'varchar(255)', (c) => c.notNull())
    .addColumn('enabled', 'smallint', defaultZero)
    .addColumn('last_step', 'bigint', defaultZero)
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('enabled_at', 'bigint', defaultZero)
    .execute();
  await withId(kind, db.schema.createTable('two_factor_backup_codes'))
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('used_at', 'bigint', defaultZero)
    .execute();
  await db.schema.createIndex('idx_two_factor_backup_codes_user').on('two_factor_backup_codes').columns(['user_id', 'code_hash']).unique().execute();
}
