import fs from 'node:fs';
import type { Config } from './config/config.js';
import type { AppContext } from './context.js';
import type { Db } from './db/client.js';
import { MemoryRateLimitStore } from './http/rate-limit.js';
import { SessionStore } from './http/session-store.js';
import { Mailer } from './modules/mail/mailer.js';
import { OptionsService } from './modules/options/options.service.js';
import { TokensRepository } from './modules/tokens/tokens.repository.js';
import { TokensService } from './modules/tokens/tokens.service.js';
import { UsersRepository } from './modules/users/users.repository.js';
import { UsersService } from './modules/users/users.service.js';
import { VerificationCodes } from './modules/users/verification-codes.js';
import { RelayServices } from './relay/relay-services.js';
import { QuotaLedger } from './ledger/quota-ledger.js';
import { ChannelsRepository } from './modules/channels/channels.repository.js';
import { ChannelsService } from './modules/channels/channels.service.js';
import { ChannelOps } from './modules/channels/channel-ops.service.js';

function readVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return `v${pkg.version ?? '0.0.0'}`;
  } catch {
    return 'v0.0.0';
  }
}

/** Wires repositories and services over an open database. Options are loaded by the caller. */
export function createContext(config: Readonly<Config>, db: Db): AppContext {
  const ctx = {
    config,
    db,
    version: readVersion(),
    startTime: Math.floor(Date.now() / 1000),
    options: new OptionsService(db),
    users: new UsersRepository(db),
    sessions: new SessionStore(db, config.sessionSecret),
    tokens: new TokensRepository(db),
    codes: new VerificationCodes(),
    rateLimitStore: new MemoryRateLimitStore(),
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
  ctx.relay = new RelayServices(db, config);
  ctx.quotaLedger = new QuotaLedger(db);
  // Token and user edits reach the relay's in-memory lookups at once.
  ctx.tokens.onWrite = (id) => ctx.relay.auth.invalidateToken(id);
  ctx.users.onWrite = (id) => ctx.relay.auth.invalidateUser(id);
  ctx.channels = new ChannelsRepository(db);
  ctx.channels.onWrite = () => ctx.relay.channels.invalidate();
  ctx.channelsService = new ChannelsService(ctx.channels);
  ctx.channelOps = new ChannelOps(ctx);
  ctx.mailer = new Mailer(ctx.options);
  ctx.usersService = new UsersService(ctx);
  ctx.tokensService = new TokensService(ctx);
  return ctx;
}
