import type { Cluster } from './cluster/cluster.js';
import type { Config } from './config/config.js';
import type { ChannelOps } from './modules/channels/channel-ops.service.js';
import type { Db } from './db/client.js';
import type { LogShipper } from './modules/logs/log-outbox.js';
import type { Logger } from './log/logger.js';
import type { Metrics } from './metrics/metrics.js';
import type { RateLimitStore } from './http/rate-limit.js';
import type { SessionStore } from './http/session-store.js';
import type { Mailer } from './modules/mail/mailer.js';
import type { ChannelNotice } from './modules/mail/channel-notice.js';
import type { QuotaReminder } from './modules/mail/quota-reminder.js';
import type { OptionsService } from './modules/options/options.service.js';
import type { RedemptionsRepository } from './modules/redemptions/redemptions.repository.js';
import type { RedemptionsService } from './modules/redemptions/redemptions.service.js';
import type { TokensRepository } from './modules/tokens/tokens.repository.js';
import type { TokensService } from './modules/tokens/tokens.service.js';
import type { TopUpsRepository } from './modules/topups/topups.repository.js';
import type { TopUpService } from './modules/topups/topups.service.js';
import type { UsersRepository } from './modules/users/users.repository.js';
import type { UsersService } from './modules/users/users.service.js';
import type { TwoFactorService } from './modules/two-factor/two-factor.service.js';
import type { PasskeyService } from './modules/passkeys/passkeys.service.js';
import type { VerificationCodes } from './modules/users/verification-codes.js';
import type { RelayServices } from './relay/relay-services.js';
import type { QuotaLedger } from './ledger/quota-ledger.js';
import type { PlansRepository } from './modules/plans/plans.repository.js';
import type { PlansService } from './modules/plans/plans.service.js';
import type { ChannelsRepository } from './modules/channels/channels.repository.js';
import type { ChannelsService } from './modules/channels/channels.service.js';
import type { SecretBox } from './crypto/secret-box.js';

/** Everything a route or job needs, built once at boot (or per test) and passed explicitly. */
export interface AppContext {
  config: Readonly<Config>;
  db: Db;
  /**
   * Where the usage log, the hourly quota data and the audit log are read (LOG_SQL_DSN's database,
   * else `db` itself). Rows are written through `db` (the ledger's transaction, or its outbox).
   */
  logDb: Db;
  /** Moves outbox rows to `logDb` when that is another database (modules/logs/log-outbox.ts). */
  logShipper?: LogShipper;
  /** The process logger; Fastify derives each request's child logger (with `reqId`) from it. */
  log: Logger;
  /** Prometheus metrics of this process (metrics/metrics.ts). */
  metrics: Metrics;
  version: string;
  startTime: number;
  options: OptionsService;
  users: UsersRepository;
  usersService: UsersService;
  /** TOTP two-factor sign-in and the admin policy (modules/two-factor). */
  twoFactor: TwoFactorService;
  /** Passkeys (WebAuthn): registration, username-less sign-in, second factor (modules/passkeys). */
  passkeys: PasskeyService;
  /** Server-side console sessions (shared database, no in-process cache). */
  sessions: SessionStore;
  tokens: TokensRepository;
  tokensService: TokensService;
  codes: VerificationCodes;
  /** Shared store, job locks + scheduler, cache invalidation: Redis when configured, else the database. */
  cluster: Cluster;
  mailer: Mailer;
  /** Quota-alert mail after relayed charges, off the request path (modules/mail/quota-reminder.ts). */
  quotaReminder: QuotaReminder;
  /** Root's notice (log entry, mail) when a channel is switched off or on automatically (modules/mail/channel-notice.ts). */
  channelNotice: ChannelNotice;
  rateLimitStore: RateLimitStore;
  /** Relay caches (tokens, users, channels), the billing ledger and the upstream pool. */
  relay: RelayServices;
  /** Every quota movement that is not a relayed request (ledger/quota-ledger.ts). */
  quotaLedger: QuotaLedger;
  /** Seals and opens stored secrets (channel keys, secret options) with the CRYPTO_SECRET key ring. */
  secrets: SecretBox;
  channels: ChannelsRepository;
  channelsService: ChannelsService;
  channelOps: ChannelOps;
  redemptions: RedemptionsRepository;
  redemptionsService: RedemptionsService;
  topUps: TopUpsRepository;
  topUpService: TopUpService;
  /** Plans, subscriptions and window meters (modules/plans; docs/ledger.md "Windows and plans"). */
  plans: PlansService;
  plansRepo: PlansRepository;
  /** Distinct enabled models available to any of the given groups (abilities table). */
  modelsForGroups(groups: string[]): Promise<string[]>;
}
