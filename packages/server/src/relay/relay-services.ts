import { autoDisableOtherInfo, ChannelStatus, TokenStatus } from '@modelgate/shared';
import type { ChannelStatusEvent } from '../modules/mail/channel-notice.js';
import type { Agent, Dispatcher } from 'undici';
import type { Invalidation } from '../cluster/invalidation.js';
import type { Config } from '../config/config.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Db } from '../db/client.js';
import { ChannelAffinity } from './affinity.js';
import { AuthCache } from './auth-cache.js';
import { Ledger } from '../ledger/ledger.js';
import { isDbUnavailable } from '../db/db-unavailable.js';
import { ChannelCache } from './channel-cache.js';
import { NO_RELAY_OBSERVER, type RelayObserver } from './relay-observer.js';
import { OverloadGuard } from './overload.js';
import { CircuitBreaker, RetryBudget } from './circuit-breaker.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { UpstreamGuard } from '../net/upstream-guard.js';
import type { ChannelTarget } from './adapters/types.js';
import { createProxyAgent, createUpstreamAgent, unsupportedProxy } from './upstream.js';

/** The relay's long-lived state: caches, the ledger and the upstream connection pool. */
export class RelayServices {
  readonly auth: AuthCache;
  readonly channels: ChannelCache;
  /** Conversation → channel (relay/affinity.ts); its shared store is attached in create-context. */
  readonly affinity = new ChannelAffinity();
  readonly ledger: Ledger;
  readonly agent: Agent;
  /**
   * The connect-time check of channels whose target no root placed (its allow list and refusal log
   * are set in create-context), and their pool: one checked lookup per new connection.
   */
  readonly guard = new UpstreamGuard();
  readonly guardedAgent: Agent;
  private readonly checkpointer: SqliteCheckpointer;
  /**
   * Per-request header timeout for streams, in ms (undefined = the agent's RELAY_TIMEOUT). A
   * streaming upstream answers with headers at once when healthy, so a silent one is treated as
   * down and the request moves to another channel; non-stream replies send headers only when the
   * whole completion is done, so they keep RELAY_TIMEOUT alone.
   */
  readonly streamHeadersTimeoutMs: number | undefined;
  /** Per-node load shedding (RELAY_MAX_CONCURRENT, RELAY_MAX_EVENT_LOOP_LAG_MS): relay/overload.ts. */
  readonly overload: OverloadGuard;
  /** Channels ejected after repeated upstream failures (relay/circuit-breaker.ts), shared over the cluster bus. */
  readonly breaker: CircuitBreaker;
  /** Retries as a bounded share of requests (RETRY_BUDGET_PERCENT). */
  readonly retryBudget: RetryBudget;

  constructor(
    private readonly handle: Db,
    private readonly config: Readonly<Config>,
    secrets: SecretBox,
  ) {
    const ttl = config.syncFrequencySec * 1000;
    this.auth = new AuthCache(handle, ttl);
    this.channels = new ChannelCache(handle, ttl, secrets, this.guard);
    this.ledger = new Ledger(handle, config.nodeId, config.ledgerLeaseSec);
    this.agent = createUpstreamAgent(config.relayTimeoutSec, config.streamingTimeoutSec);
    this.guardedAgent = createUpstreamAgent(config.relayTimeoutSec, config.streamingTimeoutSec, this.guard);
    this.checkpointer = new SqliteCheckpointer(handle, config.sqlitePath);
    const firstByte = config.relayFirstByteTimeoutSec;
    const overall = config.relayTimeoutSec;
    this.streamHeadersTimeoutMs = firstByte > 0 ? Math.min(firstByte, overall || firstByte) * 1000 : undefined;
    this.overload = new OverloadGuard(config.overload);
    this.breaker = new CircuitBreaker(config.breaker);
    this.retryBudget = new RetryBudget(config.retryBudget);
    if (this.breaker.enabled) this.channels.breaker = this.breaker;
  }

  /** One pool per proxy (and guard): `setting.proxy` of the channels that name one. */
  private readonly proxies = new Map<string, Dispatcher>();

  /**
   * The pool a channel's requests go through: its own proxy's when its setting names one (http or
   * https; a socks5 proxy is refused on connect, with its reason), else the guarded one when no root
   * placed its target, else the shared one.
   */
  dispatcherFor(target: Pick<ChannelTarget, 'guard'> & { setting?: Readonly<Record<string, unknown>> }): Dispatcher {
    const proxy = typeof target.setting?.proxy === 'string' ? target.setting.proxy.trim() : '';
    if (proxy) return this.proxyDispatcher(proxy, target.guard);
    return target.guard ? this.guardedAgent : this.agent;
  }

  private proxyDispatcher(proxy: string, guard: UpstreamGuard | undefined): Dispatcher {
    const key = `${guard ? 'guarded' : 'placed'} ${proxy}`;
    let d = this.proxies.get(key);
    if (!d) {
      d = /^https?:\/\//i.test(proxy) ? createProxyAgent(proxy, this.config.relayTimeoutSec, this.config.streamingTimeoutSec, guard) : unsupportedProxy(proxy);
      this.proxies.set(key, d);
    }
    return d;
  }

  /**
   * Tells every node a cached entry changed (set in create-context to the invalidation bus, which
   * also applies it here); unset, only this node's caches are updated.
   */
  onInvalidate?: (m: Invalidation) => void;

  /** Metrics and tracing (set in create-context); a no-op until then. */
  observer: RelayObserver = NO_RELAY_OBSERVER;

  /**
   * Told of every settled bill (set in create-context to the quota reminder, which only notes it:
   * no I/O on the request's path); a no-op until then.
   */
  afterSettle: (userId: number, settled: { charged: number; duplicate: boolean }) => void = () => undefined;

  /** Told when ModelGate switches a channel off or back on (set in create-context to the root notice); a no-op until then. */
  onChannelStatus: (e: ChannelStatusEvent) => void = () => undefined;

  private invalidate(m: Invalidation): void {
    if (this.onInvalidate) this.onInvalidate(m);
    else if (m.t === 'token') this.auth.invalidateToken(m.id);
    else if (m.t === 'channels') this.channels.invalidate();
  }

  /**
   * Stores what a request found: an expired or exhausted token. The write is conditional on the
   * row still being enabled and still expired / out of quota, because the request decided on a
   * cached or earlier read: an admin who extended or topped up the token meanwhile (on any node)
   * must not see it switched off. The cache entry is dropped either way, since it was stale.
   */
  async markTokenStatus(id: number, status: typeof TokenStatus.Expired | typeof TokenStatus.Exhausted): Promise<void> {
    let q = this.handle.db.updateTable('tokens').set({ status }).where('id', '=', id).where('status', '=', TokenStatus.Enabled);
    q =
      status === TokenStatus.Expired
        ? q.where('expired_time', '!=', -1).where('expired_time', '<', Math.floor(Date.now() / 1000))
        : q.where('unlimited_quota', '=', 0).where('remain_quota', '<=', 0);
    try {
      await q.execute();
    } catch (err) {
      // A status the next request finds again: not worth failing this one over during a database outage.
      if (!isDbUnavailable(err)) throw err;
    }
    this.invalidate({ t: 'token', id });
  }

  /**
   * Auto-disable (reference §3.6): status 3 with the reason and time in other_info, abilities
   * switched off in the same transaction, and the in-memory selection updated at once.
   */
  async autoDisableChannel(id: number, reason: string): Promise<boolean> {
    const now = Math.floor(Date.now() / 1000);
    const info = autoDisableOtherInfo(reason, now);
    const changed = await this.handle.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('channels')
        .set({ status: ChannelStatus.AutoDisabled, other_info: info })
        .where('id', '=', id)
        .where('status', '=', ChannelStatus.Enabled)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return false;
      await trx.updateTable('abilities').set({ enabled: 0 }).where('channel_id', '=', id).execute();
      return true;
    });
    this.channels.markDisabled(id);
    if (changed) {
      this.invalidate({ t: 'channels' });
      this.observer.channelAutoDisabled(id);
      this.onChannelStatus({ id, status: 'disabled', reason });
    }
    return changed;
  }

  async close(): Promise<void> {
    await this.checkpointer.close();
    await Promise.all([this.agent.close(), this.guardedAgent.close(), ...[...this.proxies.values()].map((d) => d.close())]);
  }
}
