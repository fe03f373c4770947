import { sql, type Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';

/**
 * Who placed a channel's target (docs/security.md, "Channel targets"): `target_trusted` 1 when
 * root or the operator's import did, 0 when a non-root admin did. An untrusted channel's upstream
 * connections are checked against the address policy when made, not only when the base URL was
 * saved (a name may resolve to a private address later, or not resolve at all on the day).
 *
 * The column's default is 1, so an insert that does not name it (test fixtures; the service always
 * names it) is trusted. Rows already there cannot say who saved them: those that chose an address
 * (a base URL, or a proxy in their setting — a setting that merely mentions one counts) become 0,
 * the secure default; those that chose none go to their type's own host, as the service's rule
 * trusts for anyone, and stay 1 (an Ollama channel on its default localhost keeps working). Root
 * makes one trusted again by saving it, or the operator lists its range in OutboundAllowedRanges.
 */
export async function up(db: Kysely<unknown>, _kind: SqlKind): Promise<void> {
  await db.schema.alterTable('channels').addColumn('target_trusted', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await (db as Kysely<{ channels: { target_trusted: number; base_url: string | null; setting: string | null } }>)
    .updateTable('channels')
    .set({ target_trusted: 0 })
    .where((eb) => eb.or([eb(sql`trim(coalesce(base_url, ''))`, '<>', ''), eb('setting', 'like', '%"proxy"%')]))
    .execute();
}
