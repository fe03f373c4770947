import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { installLogQuotaBucketsMysql } from '../log-quota-buckets.js';

/**
 * Hourly totals of the consume log's quota, kept by triggers on `logs`, so a stat over a long
 * window sums hours instead of rows (db/log-quota-buckets.ts; MySQL / MariaDB only). Existing rows
 * are totalled here with the log write-locked: docs/deployment.md says how long at what size.
 */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  if (kind === 'mysql') await installLogQuotaBucketsMysql(db as Kysely<any>);
}
