import type { Db } from '../db/client.js';
import type { TokenRow, UserRow } from '../db/schema.js';
import { IpMatcher, parseIpList } from '../http/ip-list.js';

/** Token fields the relay needs on every request. Quota is not here: the ledger reads it in SQL. */
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
}

export interface CachedUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  deleted: boolean;
}

const MAX_ENTRIES = 100_000;

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
  };
}

function toUser(u: UserRow): CachedUser {
  return { id: Number(u.id), username: u.username, role: Number(u.role), status: Number(u.status), group: u.group, deleted: u.deleted_at !== null };
}

/**
 * In-memory token and user lookups for the relay hot path. Writers call the invalidate hooks
 * (wired in create-context), so an edit is seen on the next request on this node; entries also
 * expire after `ttlMs` (SYNC_FREQUENCY) so other nodes' edits arrive within one sync period.
 * Unknown keys are never cached: random keys cannot fill memory.
 */
export class AuthCache {
  private readonly tokens = new Map<string, { v: CachedToken; at: number }>();
  private readonly tokenKeyById = new Map<number, string>();
  private readonly users = new Map<number, { v: CachedUser; at: number }>();

  constructor(
    private readonly handle: Db,
    private readonly ttlMs: number,
  ) {}

  async token(key: string): Promise<CachedToken | undefined> {
    const hit = this.tokens.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.v;
    const row = await this.handle.db.selectFrom('tokens').selectAll().where('key', '=', key).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) {
      this.tokens.delete(key);
      return undefined;
    }
    if (this.tokens.size >= MAX_ENTRIES) this.tokens.clear();
    const v = toToken(row);
    this.tokens.set(key, { v, at: Date.now() });
    this.tokenKeyById.set(v.id, key);
    return v;
  }

  async user(id: number): Promise<CachedUser | undefined> {
    const hit = this.users.get(id);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.v;
    const row = await this.handle.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) {
      this.users.delete(id);
      return undefined;
    }
    if (this.users.size >= MAX_ENTRIES) this.users.clear();
    const v = toUser(row);
    this.users.set(id, { v, at: Date.now() });
    return v;
  }

  invalidateToken(id: number): void {
    const key = this.tokenKeyById.get(id);
    if (key !== undefined) {
      this.tokens.delete(key);
      this.tokenKeyById.delete(id);
    }
  }

  invalidateUser(id: number): void {
    this.users.delete(id);
  }

  clear(): void {
    this.tokens.clear();
    this.tokenKeyById.clear();
    this.users.clear();
  }
}
