import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';

/**
 * Who placed a channel's target (docs/security.md, "Channel targets"): `target_trusted` 1 when
 * root or the operator's import did, 0 when a non-root admin did. An untrusted channel's upstream
 * connections are checked against the address policy when made, not only when the base URL was
 * saved (a name may resolve to a private address later, or not resolve at all on the day).
 *
 * The column's default is 1, so an insert that does not name it (test fixtures; the service always
 * names it) is trusted. Rows already there cannot say who saved them: they become 0, the secure
 * default. Root makes one trusted again by saving it, or the operator lists its range in
 * OutboundAllowedRanges.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema.alterTable('channels').addColumn('target_trusted', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await (db as Kysely<{ channels: { target_trusted: number } }>).updateTable('channels').set({ target_trusted: 0 }).execute();
}
