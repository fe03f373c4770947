/**
 * `npm run ledger:check -- [--fix-report] [--detail]`: reconciles the configured database
 * (SQL_DSN / SQLITE_PATH, as the server reads them) and exits non-zero, naming each account,
 * when a balance is not what the ledger says.
 */
import { ConfigError, loadConfig } from '../config/config.js';
import { openDb } from '../db/client.js';
import { formatReconciliation, reconcile } from './reconcile.js';

async function main(): Promise<number> {
  const args = new Set(process.argv.slice(2));
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`[ledger:check] ${e.message}`);
      return 2;
    }
    throw e;
  }
  const db = await openDb(config);
  try {
    const r = await reconcile(db.db, { detail: args.has('--detail') });
    for (const line of formatReconciliation(r, args.has('--fix-report'))) console.log(line);
    return r.ok ? 0 : 1;
  } finally {
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('[ledger:check] failed:', err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
