import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { createContext } from './create-context.js';
import { openDb } from './db/client.js';
import { migrateToLatest } from './db/migrate.js';
import { connectRedis, RedisRateLimitStore } from './http/redis-rate-limit.js';

async function main(): Promise<void> {
  let config: Readonly<Config>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`[modelgate] ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
  if (config.sessionSecretGenerated) {
    console.warn('[modelgate] SESSION_SECRET is not set: using a random secret. Sessions will not survive a restart or be shared between nodes.');
  }
  const db = await openDb(config);
  const redis = config.redisConnString ? await connectRedis(config.redisConnString) : null;
  const ctx = createContext(config, db, { redis });
  if (redis) ctx.rateLimitStore = new RedisRateLimitStore(redis);
  if (config.nodeType === 'master') {
    const applied = await migrateToLatest(db);
    if (applied.length) console.log(`[modelgate] migrations applied: ${applied.join(', ')}`);
  }
  // Subscribed before the first read, so no write made after that read can go unnoticed.
  await ctx.cluster.start();
  await ctx.options.reload();
  if (config.nodeType === 'master' && (await ctx.usersService.ensureRoot())) {
    console.log(`[modelgate] created the super admin "root"${process.env.INITIAL_ROOT_PASSWORD ? '' : ' with password 123456: change it after the first login'}`);
  }

  const app = await buildApp(ctx, { logger: { level: config.logLevel } });
  const sync = setInterval(() => {
    ctx.options.reload().catch((err: unknown) => app.log.error({ err }, 'option sync failed'));
  }, config.syncFrequencySec * 1000);
  sync.unref();

  const shutdown = async (signal: string) => {
    app.log.info(`${signal} received, shutting down`);
    clearInterval(sync);
    await app.close();
    await ctx.cluster.close();
    await db.destroy();
    redis?.disconnect();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: '0.0.0.0' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  console.log(`[modelgate] listening on http://localhost:${port} (node ${config.nodeId}, database: ${db.kind}${redis ? ', redis' : ''})`);
}

main().catch((err: unknown) => {
  console.error('[modelgate] failed to start:', err);
  process.exit(1);
});
