import { DbUnavailableError } from '../../db/db-unavailable.js';
import type { ReserveInput, ReserveResult } from '../request-ops.js';
import type { HeldWindow } from '../window-ops.js';
import { reserveLocally, type LocalDecision } from './local-reserve.js';
import type { RedisWindows } from './redis-windows.js';
import { Spool, type SpoolEntry } from './spool.js';
import { WindowCache } from './window-cache.js';

export type OutageMode = 'serve' | 'refuse';

export interface OutageConfig {
  /** DB_OUTAGE_MODE: `serve` (default) keeps relaying from the caches, `refuse` answers 503. */
  mode: OutageMode;
  /** This node's spool folder (SPOOL_DIR/<node>). */
  spoolDir: string;
  /** How long a ledger write may take before the database counts as away. */
  timeoutMs: number;
  /** How often the database is asked whether it is back. */
  probeMs: number;
}

/** What a cached account may still spend; undefined when the caller is not cached on this node. */
export type CachedBalances = (userId: number, tokenId: number) => { user: number; token: number } | undefined;

interface Hold {
  uid: number;
  tid: number;
  limited: boolean;
  amount: number;
  /** The wallet's part: the amount, or 0 when a subscription pays. */
  user: number;
  /** A caller with periodic limits or plans: the subscription that pays (0: the wallet) and the windows held. */
  paid?: number;
  wins?: readonly HeldWindow[];
}

export interface OutageLog {
  warn(o: object, msg: string): void;
  info(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

export type LocalReserve =
  | { ok: true; amount: number }
  | { ok: false; who: 'user' | 'token'; available: number };

/**
 * The ledger's side of a database outage (docs/reliability.md "Database outage"). While the
 * database is away, reservations are made here, in memory, against the balances this node has
 * cached — less what it holds for requests in flight and what it has spooled — and settlements
 * and releases go to the node's durable spool. A probe asks the database every `probeMs`; when it
 * answers, the spool is replayed (each entry exactly once, by request id) and the ledger goes back
 * to the database.
 */
export class DbOutage {
  readonly spool: Spool;
  private activeSince = 0;
  private readonly holds = new Map<string, Hold>();
  private readonly userHeld = new Map<number, number>();
  private readonly tokenHeld = new Map<number, number>();
  private probing: NodeJS.Timeout | undefined;
  private replaying: Promise<boolean> | undefined;
  private replayWanted = false;
  private closed = false;
  /** Entries spooled and replayed since start (tests). */
  readonly stats = { spooled: 0, replayed: 0 };
  /** The window counters this node has seen (callers with periodic limits or plans). */
  readonly windows = new WindowCache();
  /** With Redis: the window counters every node mirrors and decides on during an outage (redis-windows.ts). */
  private shared: RedisWindows | undefined;

  /** Set by the relay: the cached balances of a caller (relay/auth-cache.ts). */
  balances: CachedBalances = () => undefined;
  /** Told of every charge spooled or settled, so the cached balance goes down with it. */
  spent: (userId: number, tokenId: number, amount: number) => void = () => undefined;

  constructor(
    readonly config: OutageConfig,
    /** A cheap query that throws while the database is away (`select 1`). */
    private readonly probe: () => Promise<unknown>,
    /** Applies one spooled entry to the database (the ledger's replay). */
    private readonly apply: (e: SpoolEntry) => Promise<void>,
    private readonly log: OutageLog,
  ) {
    this.spool = new Spool(config.spoolDir);
  }

  get active(): boolean {
    return this.activeSince > 0;
  }

  /** The database failed a ledger write or a probe: serve (or refuse) locally until it answers again. */
  enter(err: unknown): void {
    if (this.closed) return;
    if (!this.active) {
      this.activeSince = Date.now();
      const reason = String((err as { code?: unknown; message?: unknown })?.code ?? (err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200);
      this.log.error({ reason, mode: this.config.mode }, `the database is unavailable: ${this.config.mode === 'serve' ? 'serving from caches and spooling charges' : 'refusing new relay requests'}`);
    }
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.probing || this.closed) return;
    this.probing = setTimeout(() => {
      this.probing = undefined;
      void this.tryRecover();
    }, this.config.probeMs);
    this.probing.unref();
  }

  /**
   * Probes the database; when it answers, the ledger goes back to it at once and the spool is
   * replayed behind (new requests and replayed entries touch different request ids). A replay cut
   * short by a new failure waits for the next probe.
   */
  private async tryRecover(): Promise<void> {
    try {
      await this.probe();
    } catch {
      this.scheduleProbe();
      return;
    }
    const outageMs = this.active ? Date.now() - this.activeSince : 0;
    this.activeSince = 0;
    const before = this.stats.replayed;
    if (await this.replay()) {
      this.log.info({ outageMs, replayed: this.stats.replayed - before }, 'the database answers again: spool replayed');
    } else this.enter(new DbUnavailableError('spool replay failed'));
  }

  /**
   * Replays the spool, one replay at a time; true when it is empty afterwards. A call while one
   * runs asks for another pass: entries appended meanwhile (a write that timed out after the
   * database came back, a probe's recovery) are in a file the running pass has already moved past.
   */
  replay(): Promise<boolean> {
    this.replayWanted = true;
    this.replaying ??= this.replayPasses().finally(() => {
      this.replaying = undefined;
    });
    return this.replaying;
  }

  private async replayPasses(): Promise<boolean> {
    try {
      while (this.replayWanted || (this.spool.size > 0 && !this.active)) {
        this.replayWanted = false;
        const applied = await this.spool.replay(async (e) => {
          await this.apply(e);
          this.stats.replayed += 1;
        });
        if (applied === 0 && !this.replayWanted) break;
      }
      return true;
    } catch (err) {
      this.log.warn({ err }, 'spool replay stopped: the database went away again; it resumes when it is back');
      return false;
    }
  }

  /**
   * A reservation against the cached balances. Refused (DbUnavailableError) in `refuse` mode and
   * for a caller this node has no cached balance for.
   */
  reserve(requestId: string, userId: number, tokenId: number, limited: boolean, amount: number, min?: number): LocalReserve {
    if (this.config.mode === 'refuse') {
      throw new DbUnavailableError('DB_OUTAGE_MODE=refuse');
    }
    const avail = this.available(userId, tokenId, limited);
    if (!avail) {
      throw new DbUnavailableError('the caller is not cached on this node');
    }
    let take = amount;
    if (take > 0 && (avail.user < take || avail.token < take)) {
      const left = Math.min(avail.user, avail.token);
      if (min === undefined || min >= amount || left < min || left <= 0) {
        return { ok: false, who: avail.user <= avail.token ? 'user' : 'token', available: Math.max(0, left) };
      }
      take = left;
    }
    this.hold(requestId, { uid: userId, tid: tokenId, limited, amount: take, user: take });
    return { ok: true, amount: take };
  }

  /** Shares the window counters through Redis: mirrored while the database answers, decided on together during an outage. */
  shareWindows(shared: RedisWindows): void {
    this.shared = shared;
    this.windows.mirror = shared;
    shared.outage = () => this.active;
  }

  /**
   * A reservation of a caller with periodic limits or plans, decided as the database would decide it
   * (local-reserve.ts) against the cached balances and the window counters: with Redis, the shared
   * ones (redis-windows.ts); without it — or while it is unreachable too — the ones this node has
   * seen. Refused (DbUnavailableError) in `refuse` mode, for a caller not cached, and when a window
   * the decision needs is known neither in Redis nor here.
   */
  async reserveWindows(r: ReserveInput): Promise<ReserveResult> {
    if (this.config.mode === 'refuse') throw new DbUnavailableError('DB_OUTAGE_MODE=refuse');
    if (!this.available(r.userId, r.tokenId, r.tokenLimited)) throw new DbUnavailableError('the caller is not cached on this node');
    // Balances are read and held in one synchronous step with the decision: a hold made while Redis answers is already counted.
    const decide = (windows: WindowCache): LocalDecision => {
      const avail = this.available(r.userId, r.tokenId, r.tokenLimited);
      if (!avail) throw new DbUnavailableError('the caller is not cached on this node');
      const d = reserveLocally(r, avail, windows, (rid) => this.holds.has(rid));
      if (d.result.ok && d.hold) {
        const h = d.hold;
        this.hold(r.requestId, { uid: r.userId, tid: r.tokenId, limited: r.tokenLimited, amount: d.result.amount, user: h.user, paid: h.paid, wins: h.wins });
      }
      return d;
    };
    const shared = this.shared && (await this.shared.reserve(r, this.windows, decide, () => this.unhold(r.requestId)));
    return (shared || decide(this.windows)).result;
  }

  /** What a caller may still spend on this node: the cached balance less its holds (undefined: not cached). */
  available(userId: number, tokenId: number, limited: boolean): { user: number; token: number } | undefined {
    const b = this.balances(userId, tokenId);
    if (!b) return undefined;
    return {
      user: Math.max(0, b.user - (this.userHeld.get(userId) ?? 0)),
      token: limited ? Math.max(0, b.token - (this.tokenHeld.get(tokenId) ?? 0)) : Infinity,
    };
  }

  /** True when `requestId` holds a local reservation (made during an outage). */
  isLocal(requestId: string): boolean {
    return this.holds.has(requestId);
  }

  private hold(rid: string, h: Hold): void {
    this.holds.set(rid, h);
    if (h.user) this.userHeld.set(h.uid, (this.userHeld.get(h.uid) ?? 0) + h.user);
    if (h.limited) this.tokenHeld.set(h.tid, (this.tokenHeld.get(h.tid) ?? 0) + h.amount);
  }

  /** Drops a local reservation (settled or released); returns it. */
  unhold(rid: string): Hold | undefined {
    const h = this.holds.get(rid);
    if (!h) return undefined;
    this.holds.delete(rid);
    if (h.user) {
      const u = (this.userHeld.get(h.uid) ?? 0) - h.user;
      if (u > 0) this.userHeld.set(h.uid, u);
      else this.userHeld.delete(h.uid);
    }
    if (h.limited) {
      const t = (this.tokenHeld.get(h.tid) ?? 0) - h.amount;
      if (t > 0) this.tokenHeld.set(h.tid, t);
      else this.tokenHeld.delete(h.tid);
    }
    return h;
  }

  /** Writes an entry to the spool (resolves once it is on disk) and keeps probing for the database. */
  async write(e: SpoolEntry): Promise<void> {
    await this.spool.append(e);
    this.stats.spooled += 1;
    if (e.op === 'settle') {
      // A subscription paid: the wallet's cached balance stays, the token's goes down.
      this.spent(e.paid ? 0 : e.uid, e.limited ? e.tid : 0, e.charge);
    }
    this.scheduleProbe();
  }

  /** At shutdown: what the spool still holds goes to the database if it answers (else it waits for the next start). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.probing) clearTimeout(this.probing);
    this.probing = undefined;
    if (!this.active && this.spool.size > 0) await this.replay();
    await this.replaying;
    await this.spool.close();
  }
}
