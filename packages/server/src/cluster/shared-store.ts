import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Db } from '../db/client.js';
import { insertIgnore, upsert } from '../db/dialect.js';

/**
 * Short-lived values every node must see (docs/architecture.md#several-nodes): verification codes, password-reset
 * tokens, OAuth states. Redis when configured, else the database. Keys are namespaced by the
 * caller (`code:email:<address>`, `oauth:<state>`); values are strings.
 */
export interface SharedStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Reads and deletes in one atomic step: of several concurrent takers at most one gets the value. */
  take(key: string): Promise<string | undefined>;
  /** Deletes the key only if it holds `expected` (and has not expired); true for the one caller that did. */
  takeIf(key: string, expected: string): Promise<boolean>;
  /**
   * Sets the key only if it is absent (or expired): true for the one caller that did. A lease, a
   * "done recently" mark (at most one reminder mail per user and period, on every node).
   */
  claim(key: string, value: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Removes expired entries; returns how many (Redis expires keys itself and returns 0). */
  cleanup(): Promise<number>;
}

const TAKE = `local v = redis.call('GET', KEYS[1])
if v then redis.call('DEL', KEYS[1]) end
return v`;
const TAKE_IF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisSharedStore implements SharedStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'modelgate:kv:',
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.prefix + key)) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, value, 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async take(key: string): Promise<string | undefined> {
    // A script rather than GETDEL: same atomicity, and Redis before 6.2 has no GETDEL.
    const v = (await this.redis.eval(TAKE, 1, this.prefix + key)) as string | null;
    return v ?? undefined;
  }

  async takeIf(key: string, expected: string): Promise<boolean> {
    return Number(await this.redis.eval(TAKE_IF, 1, this.prefix + key, expected)) === 1;
  }

  async claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.prefix + key, value, 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK';
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async cleanup(): Promise<number> {
    return 0;
  }
}

/** The stored key: fixed length, and exact under MySQL's case-insensitive collations. */
function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/**
 * The database fallback (table `shared_state`). Every mutation is one conditional statement whose
 * affected-row count decides, so `take` and `takeIf` are atomic on SQLite, PostgreSQL and MySQL.
 */
export class DbSharedStore implements SharedStore {
  constructor(
    private readonly handle: Db,
    private readonly now: () => number = Date.now,
  ) {}

  private get db() {
    return this.handle.db;
  }

  async get(key: string): Promise<string | undefined> {
    const k = hashKey(key);
    const row = await this.db.selectFrom('shared_state').select(['value', 'expires_at']).where('key', '=', k).executeTakeFirst();
    if (!row) return undefined;
    const now = this.now();
    if (Number(row.expires_at) > now) return row.value;
    // Lazy expiry; the condition keeps a value set again meanwhile.
    await this.db.deleteFrom('shared_state').where('key', '=', k).where('expires_at', '<=', now).execute();
    return undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const row = { key: hashKey(key), value, expires_at: this.now() + Math.max(1, Math.round(ttlMs)) };
    await upsert(this.db, this.handle.kind, 'shared_state', row, ['key'], ['value', 'expires_at']);
  }

  async take(key: string): Promise<string | undefined> {
    const k = hashKey(key);
    const now = this.now();
    if (this.handle.kind !== 'mysql') {
      const row = await this.db.deleteFrom('shared_state').where('key', '=', k).where('expires_at', '>', now).returning('value').executeTakeFirst();
      return row?.value;
    }
    // MySQL has no DELETE … RETURNING: read, then delete only that value; the delete's row count
    // picks the one winner among concurrent takers.
    const row = await this.db.selectFrom('shared_state').select('value').where('key', '=', k).where('expires_at', '>', now).executeTakeFirst();
    if (!row) return undefined;
    return (await this.deleteIf(k, row.value, now)) ? row.value : undefined;
  }

  takeIf(key: string, expected: string): Promise<boolean> {
    return this.deleteIf(hashKey(key), expected, this.now());
  }

  private async deleteIf(k: string, value: string, now: number): Promise<boolean> {
    const res = await this.db.deleteFrom('shared_state').where('key', '=', k).where('value', '=', value).where('expires_at', '>', now).executeTakeFirst();
    return Number(res.numDeletedRows) === 1;
  }

  async claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    const k = hashKey(key);
    const now = this.now();
    // An expired entry no longer holds the key; the insert's affected-row count picks one winner.
    await this.db.deleteFrom('shared_state').where('key', '=', k).where('expires_at', '<=', now).execute();
    return insertIgnore(this.db, this.handle.kind, 'shared_state', { key: k, value, expires_at: now + Math.max(1, Math.round(ttlMs)) });
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('shared_state').where('key', '=', hashKey(key)).execute();
  }

  async cleanup(): Promise<number> {
    const res = await this.db.deleteFrom('shared_state').where('expires_at', '<=', this.now()).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}

/** How long after an outage values written to the database meanwhile are looked for there (codes live minutes). */
const OUTAGE_VALUES_LIVE_MS = 60 * 60_000;

/**
 * The shared store of a node with Redis (issue 38 item 3): Redis while it answers, the database
 * while it does not, so a verification code or an OAuth state issued during an outage still works.
 * Once this node has seen Redis fail, reads that Redis cannot answer also look in the database for
 * an hour (what was written there meanwhile, by this node or another, is found after Redis is back).
 */
export class ResilientSharedStore implements SharedStore {
  private dbLiveUntil = 0;

  constructor(
    private readonly redis: Pick<Redis, 'status'>,
    private readonly shared: SharedStore,
    private readonly fallback: SharedStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The shared store's answer, or `failed` when Redis is down or the command failed. */
  private async primary<T>(op: (s: SharedStore) => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    if (this.redis.status === 'ready') {
      try {
        return { ok: true, value: await op(this.shared) };
      } catch {
        // Falls through to the database.
      }
    }
    this.dbLiveUntil = this.now() + OUTAGE_VALUES_LIVE_MS;
    return { ok: false };
  }

  private lookInDb(): boolean {
    return this.now() < this.dbLiveUntil;
  }

  async get(key: string): Promise<string | undefined> {
    const r = await this.primary((s) => s.get(key));
    if (r.ok && (r.value !== undefined || !this.lookInDb())) return r.value;
    return this.fallback.get(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const r = await this.primary((s) => s.set(key, value, ttlMs));
    if (!r.ok) await this.fallback.set(key, value, ttlMs);
  }

  async take(key: string): Promise<string | undefined> {
    const r = await this.primary((s) => s.take(key));
    if (r.ok && (r.value !== undefined || !this.lookInDb())) return r.value;
    return this.fallback.take(key);
  }

  async takeIf(key: string, expected: string): Promise<boolean> {
    const r = await this.primary((s) => s.takeIf(key, expected));
    if (r.ok && (r.value || !this.lookInDb())) return r.value;
    return this.fallback.takeIf(key, expected);
  }

  async claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    const r = await this.primary((s) => s.claim(key, value, ttlMs));
    return r.ok ? r.value : this.fallback.claim(key, value, ttlMs);
  }

  async delete(key: string): Promise<void> {
    const r = await this.primary((s) => s.delete(key));
    if (!r.ok || this.lookInDb()) await this.fallback.delete(key);
  }

  /** Redis expires its keys itself; the database's rows from an outage are swept here. */
  cleanup(): Promise<number> {
    return this.fallback.cleanup();
  }
}
