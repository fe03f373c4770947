import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty, defaultZero } from './column-types.js';

/**
 * Server-side session records, so a session can be ended on every node (logout, password change,
 * ban, role change, deletion). The key is sha256(session id) in hex; the id itself lives only in
 * the user's cookie. Each /api request reads one row by primary key; `user_id` serves "end all of
 * this user's sessions" and `expires_at` the periodic cleanup.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('expires_at', 'bigint', defaultZero)
    .addColumn('last_seen_at', 'bigint', defaultZero)
    .addColumn('ip', 'varchar(64)', defaultEmpty)
    .addColumn('user_agent', 'varchar(255)', defaultEmpty)
    .execute();
  await db.schema.createIndex('idx_sessions_user_id').on('sessions').column('user_id').execute();
  await db.schema.createIndex('idx_sessions_expires_at').on('sessions').column('expires_at').execute();
}
