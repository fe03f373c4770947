/**
 * `npm run logs:partition`: converts the usage log of an install made before time partitions
 * (a plain `logs` with rows, left as it was by migration 0016) into the partitioned table, in the
 * database the logs live in (LOG_SQL_DSN, else SQL_DSN, as the server reads them) — see
 * db/log-partition-convert.ts and docs/deployment.md#time-partitions-of-the-usage-log.
 * Exit status: 0 converted or already partitioned, 1 failed, 2 bad environment.
 */
import { ConfigError, loadConfig } from '../config/config.js';
import { openDb, openLogDb } from './client.js';
import { convertLogsToPartitions } from './log-partition-convert.js';
import { pendingMigrations } from './migrate.js';

async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`[logs:partition] ${e.message}`);
      return 2;
    }
    throw e;
  }
  const handle = (await openLogDb(config)) ?? (await openDb(config));
  try {
    if (handle.kind === 'sqlite') {
      console.error('[logs:partition] SQLite keeps the usage log in one table; time partitions are for PostgreSQL and MySQL');
      return 2;
    }
    const pending = await pendingMigrations(handle);
    if (pending.length) {
      console.error(`[logs:partition] start this version of ModelGate once first (migrations not run yet: ${pending.join(', ')})`);
      return 2;
    }
    const made = await convertLogsToPartitions(handle, config.logPartition, (line) => console.log(`[logs:partition] ${line}`));
    console.log(made === null ? '[logs:partition] the usage log is already partitioned: nothing to do' : '[logs:partition] done');
    return 0;
  } finally {
    await handle.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('[logs:partition] failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
