import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './client.js';
import * as m0001 from './migrations/0001-initial.js';
import * as m0002 from './migrations/0002-relay-ledger.js';
import * as m0003 from './migrations/0003-lean-log-indexes.js';
import * as m0004 from './migrations/0004-ledger.js';
import * as m0005 from './migrations/0005-sessions.js';
import * as m0006 from './migrations/0006-shared-state.js';
import * as m0007 from './migrations/0007-top-up-orders.js';
import * as m0008 from './migrations/0008-usage-limits.js';
import * as m0009 from './migrations/0009-oidc-identity.js';
import * as m0010 from './migrations/0010-audit-log.js';
import * as m0011 from './migrations/0011-quota-data-models.js';
import * as m0012 from './migrations/0012-console-read-indexes.js';
import * as m0013 from './migrations/0013-channel-target-trust.js';
import * as m0014 from './migrations/0014-username-keys.js';
import * as m0015 from './migrations/0015-log-outbox.js';
import * as m0016 from './migrations/0016-log-partitions.js';
import * as m0017 from './migrations/0017-log-index-quota.js';
import * as m0018 from './migrations/0018-discord-stripe.js';
import * as m0019 from './migrations/0019-two-factor.js';
import * as m0020 from './migrations/0020-passkeys.js';
import * as m0021 from './migrations/0021-plans-windows.js';
import * as m0022 from './migrations/0022-plan-orders.js';
import * as m0023 from './migrations/0023-task-request-ids.js';
import * as m0024 from './migrations/0024-log-quota-buckets.js';
import type { MigrationFn } from './migrations/column-types.js';

/** Append-only: add new migrations at the end with the next number; never edit a released one. */
const MIGRATIONS: Array<[string, { up: MigrationFn }]> = [
  ['0001-initial', m0001],
  ['0002-relay-ledger', m0002],
  ['0003-lean-log-indexes', m0003],
  ['0004-ledger', m0004],
  ['0005-sessions', m0005],
  ['0006-shared-state', m0006],
  ['0007-top-up-orders', m0007],
  ['0008-usage-limits', m0008],
  ['0009-oidc-identity', m0009],
  ['0010-audit-log', m0010],
  ['0011-quota-data-models', m0011],
  ['0012-console-read-indexes', m0012],
  ['0013-channel-target-trust', m0013],
  ['0014-username-keys', m0014],
  ['0015-log-outbox', m0015],
  ['0016-log-partitions', m0016],
  ['0017-log-index-quota', m0017],
  ['0018-discord-stripe', m0018],
  ['0019-two-factor', m0019],
  ['0020-passkeys', m0020],
  ['0021-plans-windows', m0021],
  ['0022-plan-orders', m0022],
  ['0023-task-request-ids', m0023],
  ['0024-log-quota-buckets', m0024],
];

class CodeProvider implements MigrationProvider {
  constructor(private readonly kind: Db['kind']) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, mod] of MIGRATIONS) out[name] = { up: (db) => mod.up(db, this.kind) };
    return out;
  }
}

function migratorFor(handle: Db): Migrator {
  return new Migrator({
    db: handle.db,
    provider: new CodeProvider(handle.kind),
    migrationTableName: 'modelgate_migrations',
    migrationLockTableName: 'modelgate_migrations_lock',
  });
}

/** The migrations this build knows and the database has not run yet (readiness, /readyz). */
export async function pendingMigrations(handle: Db): Promise<string[]> {
  const all = await migratorFor(handle).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

export async function migrateToLatest(handle: Db): Promise<string[]> {
  const { error, results } = await migratorFor(handle).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Runs the migrations up to and including `name` (tests that start from an older schema, e.g. an existing install's). */
export async function migrateUpTo(handle: Db, name: string): Promise<void> {
  const { error } = await migratorFor(handle).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
