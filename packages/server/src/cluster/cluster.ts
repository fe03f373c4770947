import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import { Scheduler, type JobLogger } from '../jobs/scheduler.js';
import { InvalidationBus, type InvalidationTarget } from './invalidation.js';
import { DbJobLocks, RedisJobLocks, ResilientJobLocks, type JobLocks } from './job-locks.js';
import { DbSharedStore, RedisSharedStore, ResilientSharedStore, type SharedStore } from './shared-store.js';

/**
 * Everything that makes nodes agree (docs/architecture.md#several-nodes): the shared key-value store,
 * job locks with the scheduler that uses them, and the cache-invalidation bus. Backed by Redis
 * when REDIS_CONN_STRING is set, else by the database (and, for invalidation, by cache TTLs).
 */
export class Cluster {
  readonly store: SharedStore;
  readonly locks: JobLocks;
  readonly bus: InvalidationBus;
  readonly scheduler: Scheduler;
  constructor(
    config: Pick<Config, 'nodeId'>,
    db: Db,
    readonly redis: Redis | null,
    target: InvalidationTarget,
    /** The process logger (log/logger.ts). */
    readonly log: JobLogger,
  ) {
    // Unique per process: a restarted node must not take a lease left by its previous run for its own.
    const owner = `${config.nodeId}/${randomBytes(4).toString('hex')}`;
    this.store = redis ? new ResilientSharedStore(redis, new RedisSharedStore(redis), new DbSharedStore(db)) : new DbSharedStore(db);
    this.locks = redis ? new ResilientJobLocks(redis, new RedisJobLocks(redis, owner), new DbJobLocks(db, owner)) : new DbJobLocks(db, owner);
    this.bus = new InvalidationBus(target, redis, log, `modelgate-invalidation:${config.nodeId}`);
    this.scheduler = new Scheduler(this.locks, config.nodeId, log);
  }

  /** Subscribes to invalidations (Redis only). */
  start(): Promise<void> {
    return this.bus.start();
  }

  async close(): Promise<void> {
    await this.scheduler.stop();
    await this.bus.close();
  }
}
