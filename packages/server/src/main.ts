import cluster from 'node:cluster';
import { buildApp } from './app.js';
import { joinPrimary, onPrimaryGone } from './cluster/worker.js';
import { runPrimary } from './cluster/primary.js';
import { workerSlot } from './cluster/worker-slot.js';
import { ConfigError, loadConfig, workerConfig, type Config } from './config/config.js';
import { createContext } from './create-context.js';
import { secretBoxFromConfig } from './crypto/key-ring.js';
import { defaultRootPasswordWarning, rootsWithDefaultPassword } from './modules/users/root-password.js';
import { openDb, openLogDb } from './db/client.js';
import { connectRedis } from './http/redis-rate-limit.js';
import { ensureRootUser, listenFailure, prepareDatabase, withSessionSecret } from './lifecycle/start-up.js';
import { armHardExit, exitNow, REPEAT_SIGNAL_MS, survivePipeErrors } from './lifecycle/hard-exit.js';
import { createLogger, type Logger } from './log/logger.js';
import { loadProviders } from './relay/adapters/registry.js';
import { startTracing } from './tracing/tracing.js';

async function main(): Promise<void> {
  survivePipeErrors();
  let config: Readonly<Config>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      createLogger('info').fatal(e.message);
      process.exit(1);
    }
    throw e;
  }
  // WORKERS > 1: this is the primary (it forks the workers) or one of its workers, a node of its own.
  const slot = workerSlot();
  if (slot !== undefined) config = workerConfig(config, slot);
  const log = createLogger(config.logLevel, { node: config.nodeId });
  // The primary has warned about generated secrets; a worker reads the files it created, quietly.
  config = withSessionSecret(config, slot === undefined ? log : undefined);
  if (config.workers > 1 && cluster.isPrimary) return startPrimary(config, log);

  const db = await openDb(config, { log });
  const logDb = await openLogDb(config, { log });
  const redis = config.redisConnString ? await connectRedis(config.redisConnString, { log }) : null;
  const ctx = createContext(config, db, { redis, log, logDb, secrets: slot === undefined ? undefined : secretBoxFromConfig(config) });
  const primary = slot === undefined ? undefined : joinPrimary(ctx);
  // A worker's primary has migrated the database and created root before forking it.
  if (!primary) await prepareDatabase(ctx);
  // Subscribed before the first read, so no write made after that read can go unnoticed.
  await ctx.cluster.start();
  await ctx.options.reload();
  if (!primary) await ensureRootUser(ctx);

  const tracing = await startTracing(process.env, { version: ctx.version, nodeId: config.nodeId }, log);
  // Every provider folder registers its adapters and formats before the app can relay (relay/adapters/registry.ts).
  await loadProviders();
  const app = await buildApp(ctx);
  const sync = setInterval(() => {
    ctx.options.reload().catch((err: unknown) => app.log.error({ err }, 'option sync failed'));
  }, config.syncFrequencySec * 1000);
  sync.unref();

  // One graceful stop however many signals arrive at once: systemd (KillMode=control-group) and
  // Ctrl-C on `npm start` signal the whole process group, and scripts/start.mjs forwards the same
  // signal, so the server sees it twice within milliseconds; that repeat must not cut the streams the
  // first is letting finish. A signal sent later is an operator insisting: the process exits at once.
  let stopping = 0;
  const shutdown = async (why: string) => {
    if (stopping) {
      if (Date.now() - stopping < REPEAT_SIGNAL_MS) return void log.info(`${why}; already shutting down`);
      log.warn(`${why} again: exiting now without waiting for the graceful stop`);
      return exitNow(log, 1);
    }
    stopping = Date.now();
    armHardExit(log, config.shutdownTimeoutSec);
    log.info(`${why}, shutting down (open requests may finish within ${config.shutdownTimeoutSec} s)`);
    clearInterval(sync);
    let code = 0;
    try {
      await app.close();
      // After the last request has ended, so its spans are in the final export.
      await tracing.shutdown();
      await ctx.cluster.close();
      await db.destroy();
      await logDb?.destroy();
      redis?.disconnect();
      log.info('stopped');
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      code = 1;
    }
    exitNow(log, code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT received'));
  process.on('SIGTERM', () => void shutdown('SIGTERM received'));
  // A worker does not outlive its primary, even one killed outright: the IPC channel closes with it.
  if (primary) onPrimaryGone(() => void shutdown('the cluster primary is gone'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const message = listenFailure(err, config);
    if (!message) throw err;
    // In a cluster the primary logs it once and stops every worker (a restarted one would fail alike).
    if (primary && (await primary.send({ mg: 'fatal', message }))) return void log.debug(message);
    log.fatal(message);
    return exitNow(log, 1);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (primary) {
    log.debug({ port, worker: slot }, `worker ${slot} listening on http://localhost:${port} (node ${config.nodeId})`);
    await primary.send({ mg: 'listening', port });
    return;
  }
  log.info({ port, database: db.kind, redis: Boolean(redis) }, `listening on http://localhost:${port} (node ${config.nodeId}, database: ${db.kind}${redis ? ', redis' : ''})`);
  const weakRoot = defaultRootPasswordWarning(await rootsWithDefaultPassword(db).catch(() => []), config.host, port);
  if (weakRoot) log.warn(weakRoot);
}

/**
 * WORKERS > 1: the start-up that must run once (migrations, sealing, root) happens here, before any
 * worker exists; then the primary lets its database go and only supervises (cluster/primary.ts).
 */
async function startPrimary(config: Readonly<Config>, log: Logger): Promise<void> {
  const db = await openDb(config, { log });
  const logDb = await openLogDb(config, { log });
  const ctx = createContext(config, db, { log, logDb });
  await prepareDatabase(ctx);
  await ensureRootUser(ctx);
  const weakRoots = await rootsWithDefaultPassword(db).catch(() => []);
  await ctx.relay.close();
  await db.destroy();
  await logDb?.destroy();
  runPrimary(config, log, { database: db.kind, redis: Boolean(config.redisConnString), weakRoots });
}

main().catch((err: unknown) => {
  createLogger('info').fatal({ err }, 'failed to start');
  process.exit(1);
});
