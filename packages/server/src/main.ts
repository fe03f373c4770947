import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { createContext } from './create-context.js';
import { generatedSessionSecret } from './crypto/key-ring.js';
import { defaultRootPasswordWarning, rootsWithDefaultPassword } from './modules/users/root-password.js';
import { sealSecretsAtBoot } from './crypto/reseal.js';
import { openDb } from './db/client.js';
import { migrateToLatest } from './db/migrate.js';
import { connectRedis, RedisRateLimitStore } from './http/redis-rate-limit.js';
import { createLogger } from './log/logger.js';
import { loadProviders } from './relay/adapters/registry.js';
import { startTracing } from './tracing/tracing.js';

async function main(): Promise<void> {
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
  const log = createLogger(config.logLevel, { node: config.nodeId });
  if (config.sessionSecretGenerated) {
    const generated = generatedSessionSecret(config);
    config = { ...config, sessionSecret: generated.secret };
    log.warn(
      `SESSION_SECRET is not set: sessions are signed with the generated secret in ${generated.file}${generated.created ? ' (just created)' : ''}. ` +
        'Keep that file with the data; set SESSION_SECRET (the same on every node) to run several nodes.',
    );
  }
  const db = await openDb(config, { log });
  const redis = config.redisConnString ? await connectRedis(config.redisConnString, { log }) : null;
  const ctx = createContext(config, db, { redis, log });
  if (redis) ctx.rateLimitStore = new RedisRateLimitStore(redis);
  if (config.nodeType === 'master') {
    const applied = await migrateToLatest(db);
    if (applied.length) log.info({ migrations: applied }, `migrations applied: ${applied.join(', ')}`);
    // Secrets stored in plaintext by an earlier version (or written straight into the database) are sealed now.
    await sealSecretsAtBoot(db, ctx.secrets, log);
  }
  // Subscribed before the first read, so no write made after that read can go unnoticed.
  await ctx.cluster.start();
  await ctx.options.reload();
  if (config.nodeType === 'master' && (await ctx.usersService.ensureRoot())) {
    log.warn(`created the super admin "root"${process.env.INITIAL_ROOT_PASSWORD ? '' : ' with password 123456: change it after the first login'}`);
  }

  const tracing = await startTracing(process.env, { version: ctx.version, nodeId: config.nodeId }, log);
  // Every provider folder registers its adapters and formats before the app can relay (relay/adapters/registry.ts).
  await loadProviders();
  const app = await buildApp(ctx);
  const sync = setInterval(() => {
    ctx.options.reload().catch((err: unknown) => app.log.error({ err }, 'option sync failed'));
  }, config.syncFrequencySec * 1000);
  sync.unref();

  // One graceful stop however many signals arrive: systemd (KillMode=control-group) and Ctrl-C on
  // `npm start` signal the whole process group, and scripts/start.mjs forwards the same signal,
  // so the server sees it twice; a second one must not cut the streams the first is letting finish.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return void log.info(`${signal} received again; already shutting down`);
    stopping = true;
    log.info(`${signal} received, shutting down (open requests may finish within ${config.shutdownTimeoutSec} s)`);
    clearInterval(sync);
    let code = 0;
    try {
      await app.close();
      // After the last request has ended, so its spans are in the final export.
      await tracing.shutdown();
      await ctx.cluster.close();
      await db.destroy();
      redis?.disconnect();
      log.info('stopped');
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      code = 1;
    }
    // pino writes asynchronously: flush so the last lines are not lost with the process.
    log.flush(() => process.exit(code));
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err;
    // A newcomer's commonest start-up failure: name the setting to change instead of a stack trace.
    const why = code === 'EADDRINUSE' ? 'is already in use by another process' : code === 'EACCES' ? 'needs privileges this user lacks' : 'is not an address of this machine';
    log.fatal(`cannot listen on ${config.host}:${config.port}: the ${code === 'EADDRNOTAVAIL' ? 'address' : 'port'} ${why} (${code}). Stop the other process or choose another port with PORT=<port> (and the address with HOST=<address>).`);
    log.flush(() => process.exit(1));
    return;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, database: db.kind, redis: Boolean(redis) }, `listening on http://localhost:${port} (node ${config.nodeId}, database: ${db.kind}${redis ? ', redis' : ''})`);
  const weakRoot = defaultRootPasswordWarning(await rootsWithDefaultPassword(db).catch(() => []), config.host, port);
  if (weakRoot) log.warn(weakRoot);
}

main().catch((err: unknown) => {
  createLogger('info').fatal({ err }, 'failed to start');
  process.exit(1);
});
