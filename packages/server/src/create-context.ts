import path from 'node:path';
import fs from 'node:fs';
import type { Redis } from 'ioredis';
import { Cluster } from './cluster/cluster.js';
import { workerSlot } from './cluster/worker-slot.js';
import type { Invalidation } from './cluster/invalidation.js';
import type { Config } from './config/config.js';
import type { AppContext } from './context.js';
import type { Db } from './db/client.js';
import { LogShipper } from './modules/logs/log-outbox.js';
import { MemoryRateLimitStore } from './http/rate-limit.js';
import { ResilientRateLimitStore } from './http/resilient-rate-limit.js';
import { createLogger, type Logger } from './log/logger.js';
import { SessionStore } from './http/session-store.js';
import { LoginThrottle } from './http/login-throttle.js';
import { Metrics } from './metrics/metrics.js';
import { Mailer } from './modules/mail/mailer.js';
import { ChannelNotice } from './modules/mail/channel-notice.js';
import { QuotaReminder } from './modules/mail/quota-reminder.js';
import { OptionsService } from './modules/options/options.service.js';
import { RedemptionsRepository } from './modules/redemptions/redemptions.repository.js';
import { RedemptionsService } from './modules/redemptions/redemptions.service.js';
import { TokensRepository } from './modules/tokens/tokens.repository.js';
import { TokensService } from './modules/tokens/tokens.service.js';
import { TopUpsRepository } from './modules/topups/topups.repository.js';
import { TopUpService } from './modules/topups/topups.service.js';
import { UsersRepository } from './modules/users/users.repository.js';
import { UsersService } from './modules/users/users.service.js';
import { VerificationCodes } from './modules/users/verification-codes.js';
import { LoginFlows } from './modules/two-factor/login-flow.js';
import { TwoFactorRepository } from './modules/two-factor/two-factor.repository.js';
import { PasskeyChallenges } from './modules/passkeys/passkey-challenges.js';
import { PasskeysRepository } from './modules/passkeys/passkeys.repository.js';
import { PasskeyService } from './modules/passkeys/passkeys.service.js';
import { TwoFactorService } from './modules/two-factor/two-factor.service.js';
import { RelayServices } from './relay/relay-services.js';
import { outboundAllowList } from './net/address-policy.js';
import { QuotaLedger } from './ledger/quota-ledger.js';
import { RedisWindows } from './ledger/outage/redis-windows.js';
import { PlansRepository } from './modules/plans/plans.repository.js';
import { PlansService } from './modules/plans/plans.service.js';
import { ChannelsRepository } from './modules/channels/channels.repository.js';
import { ChannelsService } from './modules/channels/channels.service.js';
import { ChannelOps } from './modules/channels/channel-ops.service.js';
import { secretBoxFromConfig } from './crypto/key-ring.js';
import type { SecretBox } from './crypto/secret-box.js';

function readVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return `v${pkg.version ?? '0.0.0'}`;
  } catch {
    return 'v0.0.0';
  }
}

/** Drops (or re-reads) the entry a message names; every node runs this for every write. */
function applyInvalidation(ctx: AppContext, m: Invalidation): void {
  switch (m.t) {
    case 'token':
      ctx.relay.auth.invalidateToken(m.id);
      break;
    case 'user':
      ctx.relay.auth.invalidateUser(m.id);
      break;
    case 'channels':
      ctx.relay.channels.invalidate();
      break;
    case 'option':
      ctx.options.reloadKey(m.key).catch((err: unknown) => ctx.log.error({ err, key: m.key }, 'option reload failed'));
      break;
    case 'eject':
      ctx.relay.breaker.applyRemote({ kind: 'eject', channel: m.id, until: m.until });
      break;
    case 'restore':
      ctx.relay.breaker.applyRemote({ kind: 'restore', channel: m.id });
      break;
  }
}

/**
 * Wires repositories and services over an open database (and Redis, when configured: shared
 * store, job locks and cross-node cache invalidation). Options are loaded and the invalidation
 * subscriber started (`ctx.cluster.start()`) by the caller.
 */
export function createContext(config: Readonly<Config>, db: Db, opts: { redis?: Redis | null; log?: Logger; secrets?: SecretBox; logDb?: Db } = {}): AppContext {
  const log = opts.log ?? createLogger(config.logLevel, { node: config.nodeId });
  // A log database of its own (LOG_SQL_DSN): log rows written on the main handle go to its outbox.
  if (opts.logDb && opts.logDb !== db) db.logsElsewhere = true;
  const secrets = opts.secrets ?? secretBoxFromConfig(config, { log });
  const ctx = {
    config,
    db,
    logDb: opts.logDb ?? db,
    log,
    version: readVersion(),
    startTime: Math.floor(Date.now() / 1000),
    secrets,
    options: new OptionsService(db, secrets),
    users: new UsersRepository(db),
    sessions: new SessionStore(db, config.sessionSecret),
    tokens: new TokensRepository(db),
    // With Redis: shared counters, falling back to this node's own while Redis is down.
    rateLimitStore: opts.redis ? new ResilientRateLimitStore(opts.redis, log) : new MemoryRateLimitStore(),
    async modelsForGroups(groups: string[]): Promise<string[]> {
      if (!groups.length) return [];
      const rows = await db.db
        .selectFrom('abilities')
        .select('model')
        .distinct()
        .where('group', 'in', groups)
        .where('enabled', '=', 1)
        .orderBy('model')
        .execute();
      return rows.map((r) => r.model);
    },
  } as unknown as AppContext;
  ctx.relay = new RelayServices(db, config, secrets);
  // A database outage is served from this node's caches, its charges spooled to disk (ledger/outage).
  const outage = ctx.relay.ledger.attachOutage(
    { ...config.dbOutage, spoolDir: path.join(config.dbOutage.spoolDir, config.nodeId.replace(/[^\w.@-]/g, '_')) },
    log,
  );
  // With Redis, window counters are mirrored there so the nodes of one outage decide on the same ones.
  if (opts.redis && config.dbOutage.mode === 'serve') outage.shareWindows(new RedisWindows(opts.redis, log));
  outage.balances = (userId, tokenId) => ctx.relay.auth.balances(userId, tokenId);
  outage.spent = (userId, tokenId, amount) => ctx.relay.auth.spent(userId, tokenId, amount);
  ctx.relay.auth.dbAway = () => outage.active;
  ctx.relay.channels.dbAway = () => outage.active;
  if (db.logsElsewhere) ctx.logShipper = new LogShipper(db, ctx.logDb, log);
  // Channels whose target no root placed are checked when connecting, against the operator's allow list; the address goes to the log only.
  ctx.relay.guard.allow = () => outboundAllowList(ctx.options);
  ctx.relay.guard.onRefused = (host, address) => log.warn({ host, address }, 'channel upstream refused at connect time: the address is one outbound requests may not reach');
  ctx.relay.channels.onUnreadable = (id, err) => log.error({ channel: id, reason: err.reason }, `channel #${id} is left out of selection: its key cannot be decrypted: ${err.message}`);
  ctx.options.onUnreadable = (key, err) => log.error({ option: key, reason: err.reason }, `option ${key} reads as unset: its stored value cannot be decrypted: ${err.message}`);
  ctx.metrics = new Metrics({ db, redis: opts.redis ?? null, ledger: () => ctx.relay.ledger, worker: workerSlot() });
  ctx.relay.observer = ctx.metrics;
  ctx.quotaLedger = new QuotaLedger(db);
  ctx.cluster = new Cluster(config, db, opts.redis ?? null, {
    apply: (m) => applyInvalidation(ctx, m),
    resync: () => {
      // During a database outage the cached callers are all the relay can serve: they stay.
      if (!outage.active) ctx.relay.auth.clear();
      ctx.relay.channels.invalidate();
      ctx.options.reload().catch((err: unknown) => ctx.log.error({ err }, 'option reload failed'));
    },
    degraded: (on) => {
      ctx.relay.auth.shortLived(on);
      ctx.relay.channels.shortLived(on);
    },
  }, log);
  ctx.cluster.scheduler.observer = ctx.metrics;
  ctx.relay.affinity.useStore(ctx.cluster.store);
  // Ejections are shared: the other nodes stop sending to a failing channel too.
  ctx.relay.breaker.onChange = (e) => {
    log.warn({ channel: e.channel, until: e.kind === 'eject' ? new Date(e.until).toISOString() : undefined }, e.kind === 'eject' ? `channel #${e.channel} ejected after repeated upstream failures` : `channel #${e.channel} is back: its probe succeeded`);
    ctx.cluster.bus.publish(e.kind === 'eject' ? { t: 'eject', id: e.channel, until: e.until } : { t: 'restore', id: e.channel });
  };
  // Once a minute at most: during a Redis outage every request would log it.
  let affinityWarnedAt = 0;
  ctx.relay.affinity.onError = (err) => {
    if (Date.now() - affinityWarnedAt < 60_000) return;
    affinityWarnedAt = Date.now();
    log.warn({ err }, 'channel affinity store failed: requests are routed by weight (logged at most once a minute)');
  };
  ctx.codes = new VerificationCodes(ctx.cluster.store);
  // Every write reaches the relay's in-memory lookups on every node (this one at once).
  const publish = (m: Invalidation) => ctx.cluster.bus.publish(m);
  ctx.tokens.onWrite = (id) => publish({ t: 'token', id });
  ctx.users.onWrite = (id) => publish({ t: 'user', id });
  ctx.relay.onInvalidate = publish;
  ctx.options.onWrite = (key) => publish({ t: 'option', key });
  ctx.channels = new ChannelsRepository(db, secrets);
  ctx.channels.onWrite = () => publish({ t: 'channels' });
  ctx.channelsService = new ChannelsService(ctx.channels, ctx.options);
  ctx.channelOps = new ChannelOps({ config, options: ctx.options, channels: ctx.channels, relay: ctx.relay, log });
  ctx.mailer = new Mailer(ctx.options);
  ctx.quotaReminder = new QuotaReminder({ db, options: ctx.options, mailer: ctx.mailer, store: ctx.cluster.store, log });
  ctx.relay.afterSettle = (userId, settled) => ctx.quotaReminder.afterSettle(userId, settled);
  ctx.channelNotice = new ChannelNotice({ db, mailer: ctx.mailer, log });
  ctx.relay.onChannelStatus = (e) => ctx.channelNotice.notify(e);
  ctx.tokensService = new TokensService({ tokens: ctx.tokens, options: ctx.options, quotaLedger: ctx.quotaLedger });
  ctx.usersService = new UsersService({
    config,
    db,
    users: ctx.users,
    options: ctx.options,
    codes: ctx.codes,
    sessions: ctx.sessions,
    quotaLedger: ctx.quotaLedger,
    tokensService: ctx.tokensService,
    loginThrottle: new LoginThrottle(ctx.cluster.store, config.loginFailures),
  });
  ctx.passkeys = new PasskeyService({ repo: new PasskeysRepository(db), challenges: new PasskeyChallenges(ctx.cluster.store), users: ctx.users, log });
  ctx.twoFactor = new TwoFactorService({
    repo: new TwoFactorRepository(db),
    secrets,
    options: ctx.options,
    users: ctx.users,
    sessions: ctx.sessions,
    throttle: new LoginThrottle(ctx.cluster.store, config.loginFailures),
    flows: new LoginFlows(ctx.cluster.store),
    passkeys: ctx.passkeys,
  });
  ctx.plansRepo = new PlansRepository(db);
  ctx.plans = new PlansService({ db, repo: ctx.plansRepo, quotaLedger: ctx.quotaLedger, options: ctx.options, onUserChange: (id) => publish({ t: 'user', id }) });
  ctx.redemptions = new RedemptionsRepository(db);
  ctx.redemptionsService = new RedemptionsService({ db, redemptions: ctx.redemptions, options: ctx.options, quotaLedger: ctx.quotaLedger });
  ctx.topUps = new TopUpsRepository(db);
  ctx.topUpService = new TopUpService({ db, topUps: ctx.topUps, options: ctx.options, quotaLedger: ctx.quotaLedger, plans: ctx.plans });
  return ctx;
}
