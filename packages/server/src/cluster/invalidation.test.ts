import { TokenStatus } from '@modelgate/shared';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../http/redis-rate-limit.js';
import { captureLogger } from '../test-support/capture-logger.js';
import { AuthCache } from '../relay/auth-cache.js';
import { useMigratedDb } from '../test-support/test-db.js';
import { InvalidationBus, type Invalidation, type InvalidationTarget } from './invalidation.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

function recorder() {
  const seen: Invalidation[] = [];
  let resyncs = 0;
  const target: InvalidationTarget = {
    apply: (m) => void seen.push(m),
    resync: () => void resyncs++,
  };
  return { target, seen, resyncs: () => resyncs };
}

describe.skipIf(!process.env.TEST_REDIS_URL)('cache invalidation over Redis pub/sub', () => {
  const conns: Redis[] = [];
  const buses: InvalidationBus[] = [];
  const redis = async (db = 0) => {
    const url = new URL(process.env.TEST_REDIS_URL!);
    url.pathname = `/${db}`;
    const r = await connectRedis(url.toString());
    conns.push(r);
    return r;
  };
  const bus = async (target: InvalidationTarget, db = 0, name = `test-${randomBytes(4).toString('hex')}`) => {
    const b = new InvalidationBus(target, await redis(db), captureLogger().log, name);
    await b.start();
    buses.push(b);
    return b;
  };

  afterAll(async () => {
    for (const b of buses) await b.close();
    for (const c of conns) c.disconnect();
  });

  it('applies a change on the sender at once and on every node of the same Redis database', async () => {
    const a = recorder();
    const b = recorder();
    const other = recorder();
    const nodeA = await bus(a.target, 9);
    await bus(b.target, 9);
    await bus(other.target, 10);
    const m: Invalidation = { t: 'token', id: Math.floor(Math.random() * 1e9) };
    nodeA.publish(m);
    expect(a.seen).toEqual([m]);
    await until(() => b.seen.length === 1 && a.seen.length === 2);
    expect(b.seen).toEqual([m]);
    nodeA.publish({ t: 'option', key: 'Notice' });
    nodeA.publish({ t: 'channels' });
    await until(() => b.seen.length === 3);
    expect(b.seen.slice(1)).toEqual([{ t: 'option', key: 'Notice' }, { t: 'channels' }]);
    // Another Redis database is another cluster.
    await sleep(100);
    expect(other.seen).toEqual([]);
  });

  it('drops every cache after the subscriber reconnects, and keeps receiving', async () => {
    const a = recorder();
    const b = recorder();
    const name = `test-reconnect-${randomBytes(4).toString('hex')}`;
    const nodeA = await bus(a.target, 9);
    await bus(b.target, 9, name);
    const admin = await redis();
    const list = (await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
    const id = /id=(\d+) [^\n]*name=([^ ]+)/g;
    let victim: string | undefined;
    for (const m of list.matchAll(id)) if (m[2] === name) victim = m[1];
    expect(victim).toBeDefined();
    await admin.client('KILL', 'ID', victim!);
    await until(() => b.resyncs() >= 1);
    await until(() => {
      nodeA.publish({ t: 'user', id: 7 });
      return b.seen.some((m) => m.t === 'user' && m.id === 7);
    });
  });
});

describe('auth cache invalidation', () => {
  const handle = useMigratedDb('sqlite');

  const addToken = async () => {
    const key = randomBytes(24).toString('hex');
    await handle().db.insertInto('tokens').values({ user_id: 1, key, name: 't', status: TokenStatus.Enabled }).execute();
    const row = await handle().db.selectFrom('tokens').select('id').where('key', '=', key).executeTakeFirstOrThrow();
    return { key, id: Number(row.id) };
  };

  it('does not cache a row read while an invalidation arrived', async () => {
    const cache = new AuthCache(handle(), 60_000);
    const t = await addToken();
    const reading = cache.token(t.key);
    // The message lands while the read is in flight; the row it returns may predate the write.
    cache.invalidateToken(t.id);
    expect((await reading)?.status).toBe(TokenStatus.Enabled);
    await handle().db.updateTable('tokens').set({ status: TokenStatus.Disabled }).where('id', '=', t.id).execute();
    expect((await cache.token(t.key))?.status).toBe(TokenStatus.Disabled);
  });

  it('drops a cached token by id, the only thing a message carries', async () => {
    const cache = new AuthCache(handle(), 60_000);
    const t = await addToken();
    expect((await cache.token(t.key))?.status).toBe(TokenStatus.Enabled);
    await handle().db.updateTable('tokens').set({ status: TokenStatus.Disabled }).where('id', '=', t.id).execute();
    expect((await cache.token(t.key))?.status).toBe(TokenStatus.Enabled);
    cache.invalidateToken(t.id);
    expect((await cache.token(t.key))?.status).toBe(TokenStatus.Disabled);
  });
});
