/**
 * `npm run import -- --from <new-api database> [--from-logs <its LOG_SQL_DSN>] [--dry-run]`: brings a
 * new-api (v0.4.x) database into the ModelGate database the environment names (SQL_DSN /
 * SQLITE_PATH, and LOG_SQL_DSN for the logs, as the server reads them),
 * prints what was imported and what could not be, then reconciles the ledger. Exit status: 0 done
 * (ledger reconciles), 1 refused or failed (nothing written), 2 bad arguments or environment.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { ConfigError, loadConfig } from '../config/config.js';
import { generatedSecretPath, secretBoxFromConfig } from '../crypto/key-ring.js';
import { SecretBox } from '../crypto/secret-box.js';
import { openDb, openLogDb } from '../db/client.js';
import { formatReconciliation, reconcile } from '../ledger/reconcile.js';
import { runImport } from './importer.js';
import { formatImportReport } from './report.js';
import { ImportError, openSource, parseSourceDsn, type Source } from './source.js';

const USAGE = `usage: npm run import -- --from <new-api database> [--from-logs <new-api log database>] [--dry-run]
  <new-api database>: a SQLite file (path, sqlite://path, or "local" for ./one-api.db),
  postgres://user:pass@host:5432/db, mysql://user:pass@host:3306/db or user:pass@tcp(host:3306)/db
  <new-api log database>: new-api's LOG_SQL_DSN, in the same forms, when it kept its logs apart
  The ModelGate database is the one SQL_DSN / SQLITE_PATH name, as for the server; its logs go to
  LOG_SQL_DSN when that is set.`;

interface Args {
  from: string;
  fromLogs?: string;
  dryRun: boolean;
}

function parseArgs(argv: string[]): Args | string {
  let from: string | undefined;
  let fromLogs: string | undefined;
  let dryRun = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--dry-run') dryRun = true;
    else if (a === '--from') from = argv[++i];
    else if (a.startsWith('--from=')) from = a.slice(7);
    else if (a === '--from-logs') fromLogs = argv[++i] ?? '';
    else if (a.startsWith('--from-logs=')) fromLogs = a.slice(12);
    else if (a === '--help' || a === '-h') return USAGE;
    else return `unknown argument ${a}\n${USAGE}`;
  }
  if (fromLogs !== undefined && !fromLogs.trim()) return `--from-logs needs new-api's log database\n${USAGE}`;
  return from ? { from, fromLogs, dryRun } : `--from is required\n${USAGE}`;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    console.error(args);
    return args === USAGE ? 0 : 2;
  }
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`[import] ${e.message}`);
      return 2;
    }
    throw e;
  }
  const dsn = parseSourceDsn(args.from);
  if (dsn.kind === 'sqlite' && !config.sqlDsn && dsn.location === config.sqlitePath) {
    console.error('[import] --from names the ModelGate database itself');
    return 2;
  }
  const logDsn = args.fromLogs === undefined ? undefined : parseSourceDsn(args.fromLogs);
  if (logDsn && logDsn.location === dsn.location) {
    console.error('[import] --from-logs names the same database as --from: leave it out when new-api keeps its logs there');
    return 2;
  }
  const source: Source = await openSource(dsn);
  let logSource: Source | undefined;
  try {
    logSource = logDsn && (await openSource(logDsn));
  } catch (err) {
    await source.close();
    throw err;
  }
  // A dry run must not even create the SQLite file: an absent database is an empty one.
  const absent = args.dryRun && !config.sqlDsn && !fs.existsSync(config.sqlitePath);
  const target = await openDb(absent ? { ...config, sqlitePath: ':memory:' } : config);
  const logTarget = await openLogDb(config);
  try {
    // A dry run creates nothing, not even the generated key file (nothing sealed with it exists yet).
    const throwaway = args.dryRun && config.cryptoSecretFrom === 'generated' && !fs.existsSync(generatedSecretPath(config));
    const secrets = throwaway ? new SecretBox({ current: randomBytes(32).toString('base64url') }) : secretBoxFromConfig(config);
    const report = await runImport(source, target, { dryRun: args.dryRun, secrets, logSource, logTarget });
    for (const line of formatImportReport(report)) console.log(line);
    if (args.dryRun) return report.conflicts.length ? 1 : 0;
    const r = await reconcile(target.db);
    for (const line of formatReconciliation(r)) console.log(line);
    return r.ok ? 0 : 1;
  } finally {
    await source.close();
    await logSource?.close();
    await target.destroy();
    await logTarget?.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof ImportError ? `[import] ${err.message}` : `[import] failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
