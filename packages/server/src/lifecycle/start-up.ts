import type { Config } from '../config/config.js';
import type { AppContext } from '../context.js';
import { generatedSessionSecret } from '../crypto/key-ring.js';
import { sealSecretsAtBoot } from '../crypto/reseal.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Logger } from '../log/logger.js';

/**
 * The steps of main.ts that run once per start, shared by a single process and the cluster primary
 * (cluster/primary.ts), which runs them before forking so its workers skip them.
 */

/**
 * Without SESSION_SECRET, the secret generated once into the data folder (crypto/key-ring.ts). Every
 * worker reads the same file the primary created; only `log` (the primary, or the single process) warns.
 */
export function withSessionSecret(config: Readonly<Config>, log?: Logger): Readonly<Config> {
  if (!config.sessionSecretGenerated) return config;
  const generated = generatedSessionSecret(config);
  log?.warn(
    `SESSION_SECRET is not set: sessions are signed with the generated secret in ${generated.file}${generated.created ? ' (just created)' : ''}. ` +
      'Keep that file with the data; set SESSION_SECRET (the same on every node) to run several nodes.',
  );
  return { ...config, sessionSecret: generated.secret };
}

/** Master nodes: migrations, then secrets stored in plaintext by an earlier version (or written straight into the database) are sealed. */
export async function prepareDatabase(ctx: Pick<AppContext, 'config' | 'db' | 'secrets' | 'log'> & Partial<Pick<AppContext, 'logDb'>>): Promise<void> {
  if (ctx.config.nodeType !== 'master') return;
  const applied = await migrateToLatest(ctx.db);
  if (applied.length) ctx.log.info({ migrations: applied }, `migrations applied: ${applied.join(', ')}`);
  // The log database (LOG_SQL_DSN) runs the same migrations; only its log tables are used.
  if (ctx.logDb && ctx.logDb !== ctx.db) {
    const logApplied = await migrateToLatest(ctx.logDb);
    if (logApplied.length) ctx.log.info({ migrations: logApplied }, `log database (LOG_SQL_DSN) migrations applied: ${logApplied.join(', ')}`);
  }
  await sealSecretsAtBoot(ctx.db, ctx.secrets, ctx.log);
}

/** Master nodes: the super admin on an empty database, with the warning an operator must see. */
export async function ensureRootUser(ctx: Pick<AppContext, 'config' | 'usersService' | 'log'>): Promise<void> {
  if (ctx.config.nodeType !== 'master' || !(await ctx.usersService.ensureRoot())) return;
  ctx.log.warn(`created the super admin "root"${process.env.INITIAL_ROOT_PASSWORD ? '' : ' with password 123456: change it after the first login'}`);
}

/**
 * The fatal line for a listen error a newcomer commonly meets, naming the setting to change instead
 * of a stack trace; undefined for any other error.
 */
export function listenFailure(err: unknown, config: Pick<Config, 'host' | 'port'>): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') return undefined;
  const why = code === 'EADDRINUSE' ? 'is already in use by another process' : code === 'EACCES' ? 'needs privileges this user lacks' : 'is not an address of this machine';
  return `cannot listen on ${config.host}:${config.port}: the ${code === 'EADDRNOTAVAIL' ? 'address' : 'port'} ${why} (${code}). Stop the other process or choose another port with PORT=<port> (and the address with HOST=<address>).`;
}
