import type { Redis } from 'ioredis';
import type { Db } from '../db/client.js';
import { insertIgnore } from '../db/dialect.js';

/**
 * Named leases so one node runs each background job (docs/architecture.md#several-nodes). A lock is held by `owner`
 * (this process) until it expires or is released; only the owner can extend or release it, and
 * the owner may re-acquire a lock it still holds. Redis when configured, else the database.
 */
export interface JobLocks {
  /** This process's owner id: `<NODE_ID>/<random>`, so a restarted node never mistakes an old lease for its own. */
  readonly owner: string;
  acquire(name: string, ttlMs: number): Promise<boolean>;
  /** Pushes the expiry to now + ttlMs; false when the lock is no longer ours. */
  extend(name: string, ttlMs: number): Promise<boolean>;
  release(name: string): Promise<void>;
}

const EXTEND = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisJobLocks implements JobLocks {
  constructor(
    private readonly redis: Redis,
    readonly owner: string,
    private readonly prefix = 'modelgate:lock:',
  ) {}

  async acquire(name: string, ttlMs: number): Promise<boolean> {
    const ttl = Math.max(1, Math.round(ttlMs));
    if ((await this.redis.set(this.prefix + name, this.owner, 'PX', ttl, 'NX')) === 'OK') return true;
    return this.extend(name, ttl);
  }

  async extend(name: string, ttlMs: number): Promise<boolean> {
    return Number(await this.redis.eval(EXTEND, 1, this.prefix + name, this.owner, Math.max(1, Math.round(ttlMs)))) === 1;
  }

  async release(name: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.prefix + name, this.owner);
  }
}

/**
 * Table `job_locks`. Acquire = insert-if-absent, else take over a row that has expired or is
 * already ours; both are single conditional statements and the affected-row count decides, so of
 * several nodes racing for a free lock exactly one wins. Expiry uses each node's clock: keep node
 * clocks in sync (NTP) and TTLs well above any skew.
 */
export class DbJobLocks implements JobLocks {
  constructor(
    private readonly handle: Db,
    readonly owner: string,
    private readonly now: () => number = Date.now,
  ) {}

  async acquire(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const expires_at = now + Math.max(1, Math.round(ttlMs));
    if (await insertIgnore(this.handle.db, this.handle.kind, 'job_locks', { name, owner: this.owner, expires_at })) return true;
    const res = await this.handle.db
      .updateTable('job_locks')
      .set({ owner: this.owner, expires_at })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('owner', '=', this.owner)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async extend(name: string, ttlMs: number): Promise<boolean> {
    const res = await this.handle.db
      .updateTable('job_locks')
      .set({ expires_at: this.now() + Math.max(1, Math.round(ttlMs)) })
      .where('name', '=', name)
      .where('owner', '=', this.owner)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async release(name: string): Promise<void> {
    await this.handle.db.deleteFrom('job_locks').where('name', '=', name).where('owner', '=', this.owner).execute();
  }
}

/**
 * Job locks of a node with Redis: Redis's while it answers, the database's while it does not
 * (issue 38 item 3), so periodic jobs keep running through a Redis outage. A lock is extended and
 * released where it was taken. Nodes that disagree about Redis at the same moment (one still
 * reaching it, one not) could both run a job once; the jobs are written to be safe to repeat.
 */
export class ResilientJobLocks implements JobLocks {
  private readonly heldIn = new Map<string, JobLocks>();

  constructor(
    private readonly redis: Pick<Redis, 'status'>,
    private readonly shared: JobLocks,
    private readonly fallback: JobLocks,
  ) {}

  get owner(): string {
    return this.shared.owner;
  }

  async acquire(name: string, ttlMs: number): Promise<boolean> {
    let store = this.redis.status === 'ready' ? this.shared : this.fallback;
    let ok: boolean;
    try {
      ok = await store.acquire(name, ttlMs);
    } catch (err) {
      if (store === this.fallback) throw err;
      store = this.fallback;
      ok = await store.acquire(name, ttlMs);
    }
    if (ok) this.heldIn.set(name, store);
    return ok;
  }

  async extend(name: string, ttlMs: number): Promise<boolean> {
    const store = this.heldIn.get(name);
    if (!store) return false;
    try {
      return await store.extend(name, ttlMs);
    } catch {
      return false;
    }
  }

  async release(name: string): Promise<void> {
    const store = this.heldIn.get(name);
    this.heldIn.delete(name);
    await store?.release(name).catch(() => undefined);
  }
}
