import { parsePeriodLimits, type PeriodLimits } from '@modelgate/shared';
import { SHORT_TTL_MS } from './short-ttl.js';
import type { Db } from '../db/client.js';
import type { TokenRow, UserPlanRow, UserRow } from '../db/schema.js';
import { IpMatcher, parseIpList } from '../http/ip-list.js';
import { DbUnavailableError, isDbUnavailable } from '../db/db-unavailable.js';

/**
 * Token fields the relay needs on every request. The ledger decides on quota in SQL; `remainQuota`
 * is only what a database outage serves from (ledger/outage), lowered by this node's charges.
 */
export interface CachedToken {
  id: number;
  userId: number;
  key: string;
  name: string;
  status: number;
  expiredTime: number;
  unlimited: boolean;
  modelLimits: ReadonlySet<string> | null;
  /** IPs and CIDR ranges the token may be used from; null = anywhere. */
  allowIps: IpMatcher | null;
  group: string;
  /** Requests and tokens per minute; 0 = no limit. */
  rpmLimit: number;
  tpmLimit: number;
  remainQuota: number;
  /** Caps per window (docs/ledger.md "Windows and plans"); null or absent (the playground's stand-in) = none, so no window is read. */
  periodLimits?: PeriodLimits | null;
}

/** An active subscription, as the relay draws on it (modules/plans). */
export interface CachedPlan {
  id: number;
  name: string;
  allowances: PeriodLimits;
  /** Models and groups it pays for; null = any. */
  models: ReadonlySet<string> | null;
  groups: ReadonlySet<string> | null;
  fallThrough: boolean;
  /** Unix seconds; 0 = never. */
  expiresAt: number;
}

export interface CachedUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  deleted: boolean;
  /** Relay requests in flight at once; 0 = no limit. */
  concurrencyLimit: number;
  /** The balance when read, lowered by this node's charges since: what a database outage serves from. */
  quota: number;
  /** Caps per window; null = none. */
  periodLimits: PeriodLimits | null;
  /** Active subscriptions in draw order (empty for most users: nothing is read for them on a request). */
  plans: readonly CachedPlan[];
}

const MAX_ENTRIES = 100_000;

const STALE = Symbol('stale');

/** A database read that falls back to the cached entry (if any) when the database is away. */
async function staleOnOutage<T>(read: Promise<T>, hit: unknown): Promise<T | typeof STALE> {
  try {
    return await read;
  } catch (err) {
    if (hit && isDbUnavailable(err)) return STALE;
    throw err;
  }
}

function toToken(t: TokenRow): CachedToken {
  const limits = (t.model_limits ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // IPs and CIDR ranges, one per line (commas and spaces also split: the reference removed them,
  // gluing "a, b" into one address). Entries saved before validation that parse as neither are
  // dropped, but a non-empty list stays a list: it fails closed rather than opening to everyone.
  const ips = parseIpList(t.allow_ips);
  return {
    id: Number(t.id),
    userId: Number(t.user_id),
    key: t.key,
    name: t.name,
    status: Number(t.status),
    expiredTime: Number(t.expired_time),
    unlimited: !!t.unlimited_quota,
    modelLimits: t.model_limits_enabled ? new Set(limits) : null,
    allowIps: ips.entries.length ? new IpMatcher(ips.ranges) : null,
    group: t.group ?? '',
    rpmLimit: Number(t.rpm_limit ?? 0),
    tpmLimit: Number(t.tpm_limit ?? 0),
    remainQuota: Number(t.remain_quota ?? 0),
    periodLimits: limitsOf(t.period_limits),
  };
}

function limitsOf(stored: string | null | undefined): PeriodLimits | null {
  const l = parsePeriodLimits(stored);
  return Object.keys(l).length ? l : null;
}

function nameSet(list: string | null | undefined): ReadonlySet<string> | null {
  const names = (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length ? new Set(names) : null;
}

function toPlan(p: UserPlanRow): CachedPlan {
  return {
    id: Number(p.id),
    name: p.name,
    allowances: parsePeriodLimits(p.allowances),
    models: nameSet(p.models),
    groups: nameSet(p.groups),
    fallThrough: Number(p.fall_through) !== 0,
    expiresAt: Number(p.expires_at ?? 0),
  };
}

function toUser(u: UserRow, plans: readonly UserPlanRow[]): CachedUser {
  return {
    id: Number(u.id),
    username: u.username,
    role: Number(u.role),
    status: Number(u.status),
    group: u.group,
    deleted: u.deleted_at !== null,
    concurrencyLimit: Number(u.concurrency_limit ?? 0),
    quota: Number(u.quota ?? 0),
    periodLimits: limitsOf(u.period_limits),
    plans: plans.map(toPlan),
  };
}

/**
 * In-memory token and user lookups for the relay hot path. Writers on any node invalidate entries
 * by id (wired in create-context through the invalidation bus: Redis pub/sub across nodes), so an
 * edit is in force on every node's next request; entries also expire after `ttlMs`
 * (SYNC_FREQUENCY), which is how other nodes converge when Redis is not configured.
 * Unknown keys are never cached: random keys cannot fill memory.
 */
export class AuthCache {
  private readonly tokens = new Map<string, { v: CachedToken; at: number }>();
  /** id → key of every cached token, so invalidation by id (all a message carries) always finds it. */
  private readonly tokenKeyById = new Map<number, string>();
  private readonly users = new Map<number, { v: CachedUser; at: number }>();
  /**
   * Bumped by every invalidation: a database read that started before one is returned but not
   * cached, so a message arriving while the read is in flight cannot be overwritten by a stale row.
   */
  private tokenEpoch = 0;
  private userEpoch = 0;

  private ttlMs: number;

  /**
   * True while the ledger knows the database is away (ledger/outage): expired entries are served
   * as they are instead of being read again, and a read that fails on a lost database falls back
   * to the entry it would have replaced. A caller with no entry is refused by the relay.
   */
  dbAway: () => boolean = () => false;

  constructor(
    private readonly handle: Db,
    private readonly normalTtlMs: number,
  ) {
    this.ttlMs = normalTtlMs;
  }

  /** While invalidations may be missed (Redis down), entries live at most SHORT_TTL_MS. */
  shortLived(on: boolean): void {
    this.ttlMs = on ? Math.min(this.normalTtlMs, SHORT_TTL_MS) : this.normalTtlMs;
  }

  async token(key: string): Promise<CachedToken | undefined> {
    const hit = this.tokens.get(key);
    if (hit && (Date.now() - hit.at < this.ttlMs || this.dbAway())) return hit.v;
    // Not cached while the database is away: refused at once, not queued behind connections that may hang.
    if (this.dbAway()) throw new DbUnavailableError('the token is not cached on this node');
    const epoch = this.tokenEpoch;
    const row = await staleOnOutage(this.handle.db.selectFrom('tokens').selectAll().where('key', '=', key).where('deleted_at', 'is', null).executeTakeFirst(), hit);
    if (row === STALE) return hit!.v;
    if (!row) {
      this.dropTokenKey(key);
      return undefined;
    }
    const v = toToken(row);
    if (epoch !== this.tokenEpoch) return v;
    if (this.tokens.size >= MAX_ENTRIES) {
      this.tokens.clear();
      this.tokenKeyById.clear();
    }
    const previous = this.tokenKeyById.get(v.id);
    if (previous !== undefined && previous !== key) this.tokens.delete(previous);
    this.tokens.set(key, { v, at: Date.now() });
    this.tokenKeyById.set(v.id, key);
    return v;
  }

  async user(id: number): Promise<CachedUser | undefined> {
    const hit = this.users.get(id);
    if (hit && (Date.now() - hit.at < this.ttlMs || this.dbAway())) return hit.v;
    if (this.dbAway()) throw new DbUnavailableError('the user is not cached on this node');
    const epoch = this.userEpoch;
    const db = this.handle.db;
    // Side by side: the subscriptions cost no extra round trip in time, and only when the entry is (re)loaded.
    const read = Promise.all([
      db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
      db.selectFrom('user_plans').selectAll().where('user_id', '=', id).where('status', '=', 1).orderBy('priority').orderBy('id').execute(),
    ]);
    const found = await staleOnOutage(read, hit);
    if (found === STALE) return hit!.v;
    const [row, plans] = found;
    if (!row) {
      this.users.delete(id);
      return undefined;
    }
    const v = toUser(row, plans);
    if (epoch !== this.userEpoch) return v;
    if (this.users.size >= MAX_ENTRIES) this.users.clear();
    this.users.set(id, { v, at: Date.now() });
    return v;
  }

  /** The cached balances of a user and token, for a reservation while the database is away; undefined when either is not cached. */
  balances(userId: number, tokenId: number): { user: number; token: number } | undefined {
    const user = this.users.get(userId)?.v;
    const key = this.tokenKeyById.get(tokenId);
    const token = key === undefined ? undefined : this.tokens.get(key)?.v;
    if (!user || !token || token.userId !== userId) return undefined;
    return { user: user.quota, token: token.remainQuota };
  }

  /** A charge this node made: the cached balances go down with it until the entries are read again. */
  spent(userId: number, tokenId: number, amount: number): void {
    const user = this.users.get(userId)?.v;
    if (user) user.quota -= amount;
    const key = tokenId > 0 ? this.tokenKeyById.get(tokenId) : undefined;
    const token = key === undefined ? undefined : this.tokens.get(key)?.v;
    if (token) token.remainQuota -= amount;
  }

  private dropTokenKey(key: string): void {
    const hit = this.tokens.get(key);
    if (!hit) return;
    this.tokens.delete(key);
    if (this.tokenKeyById.get(hit.v.id) === key) this.tokenKeyById.delete(hit.v.id);
  }

  invalidateToken(id: number): void {
    this.tokenEpoch += 1;
    const key = this.tokenKeyById.get(id);
    if (key !== undefined) {
      this.tokens.delete(key);
      this.tokenKeyById.delete(id);
    }
  }

  invalidateUser(id: number): void {
    this.userEpoch += 1;
    this.users.delete(id);
  }

  clear(): void {
    this.tokenEpoch += 1;
    this.userEpoch += 1;
    this.tokens.clear();
    this.tokenKeyById.clear();
    this.users.clear();
  }
}
