import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty, defaultZero, TEXT, withId } from './column-types.js';

/**
 * The audit log (docs/security.md#audit-log): one row per admin or root action, written after the
 * call answered, off the request path. Rows are few (people, not requests, make them) but kept for
 * months, and the super admin's screen filters them by time, actor, action and target.
 * `details` is JSON: the request's fields, the target's changed fields (credentials masked before
 * they get here) and the answer's count or new id.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  await withId(kind, db.schema.createTable('audit_logs'))
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('actor_id', 'bigint', defaultZero)
    .addColumn('actor_name', 'varchar(64)', defaultEmpty)
    .addColumn('actor_role', 'integer', defaultZero)
    .addColumn('ip', 'varchar(64)', defaultEmpty)
    .addColumn('user_agent', 'varchar(255)', defaultEmpty)
    .addColumn('action', 'varchar(64)', defaultEmpty)
    .addColumn('target_type', 'varchar(32)', defaultEmpty)
    // 32 + 128 characters keep the (target_type, target_id) index under MySQL's 767-byte key limit in utf8mb4.
    .addColumn('target_id', 'varchar(128)', defaultEmpty)
    .addColumn('success', 'integer', defaultZero)
    .addColumn('message', 'varchar(500)', defaultEmpty)
    // MySQL TEXT takes no default; the writer always fills it.
    .addColumn('details', TEXT, (c) => c.notNull())
    .execute();
  // Retention deletes by age (jobs/audit-retention.job.ts, in batches of the oldest ids below a
  // time) and every time-range filter of the screen starts from this index.
  await db.schema.createIndex('idx_audit_logs_created_at').on('audit_logs').column('created_at').execute();
  // "What did this admin do, and when": the actor filter, its time range read from the same index.
  await db.schema.createIndex('idx_audit_logs_actor_created').on('audit_logs').columns(['actor_id', 'created_at']).execute();
  // The action filter: one action, or a family expanded to its actions (an IN list, no LIKE).
  await db.schema.createIndex('idx_audit_logs_action_created').on('audit_logs').columns(['action', 'created_at']).execute();
  // "Who touched this channel / user / option": the target filter.
  await db.schema.createIndex('idx_audit_logs_target').on('audit_logs').columns(['target_type', 'target_id']).execute();
}
