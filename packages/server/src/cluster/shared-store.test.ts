import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend, testBackends, type OpenBackend } from '../test-support/backends.js';
import { DbSharedStore, RedisSharedStore, type SharedStore } from './shared-store.js';

describe.each(testBackends())('shared store on $name', (backend) => {
  let open: OpenBackend;
  /** Two stores over one backend, as two nodes see it. */
  let nodeA: SharedStore;
  let nodeB: SharedStore;
  let clock = Date.now();
  const k = (name: string) => `test:${randomBytes(6).toString('hex')}:${name}`;

  beforeAll(async () => {
    open = await openBackend(backend);
    if (backend.kind === 'redis') {
      nodeA = new RedisSharedStore(await open.redis());
      nodeB = new RedisSharedStore(await open.redis());
    } else {
      // A settable clock, so expiry is tested without sleeping.
      nodeA = new DbSharedStore(open.db!, () => clock);
      nodeB = new DbSharedStore(open.db!, () => clock);
    }
  });
  afterAll(async () => {
    await open?.close();
  });

  const expire = async (ms: number) => {
    if (backend.kind === 'redis') await new Promise((r) => setTimeout(r, ms + 20));
    else clock += ms + 1;
  };

  it('shows a value set on one node to another until it expires', async () => {
    const key = k('code');
    await nodeA.set(key, 'abc123', 150);
    expect(await nodeB.get(key)).toBe('abc123');
    await nodeB.set(key, 'def456', 150);
    expect(await nodeA.get(key)).toBe('def456');
    await expire(150);
    expect(await nodeA.get(key)).toBeUndefined();
    expect(await nodeB.take(key)).toBeUndefined();
  });

  it('keeps keys that differ only in letter case apart', async () => {
    const key = k('Mixed@Example.com');
    await nodeA.set(key, 'upper', 10_000);
    await nodeA.set(key.toLowerCase(), 'lower', 10_000);
    expect(await nodeB.get(key)).toBe('upper');
    expect(await nodeB.get(key.toLowerCase())).toBe('lower');
  });

  it('claims a key once: of 20 concurrent claims on two nodes one wins, and again after expiry', async () => {
    const key = k('claim');
    const won = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? nodeA : nodeB).claim(key, `n${i}`, 150)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = `n${won.indexOf(true)}`;
    expect(await nodeA.get(key)).toBe(winner);
    expect(await nodeB.claim(key, 'late', 150)).toBe(false);
    await expire(150);
    expect(await nodeB.claim(key, 'later', 150)).toBe(true);
    expect(await nodeA.get(key)).toBe('later');
  });

  it('takes a value once: of 20 concurrent takes on two nodes exactly one gets it', async () => {
    const key = k('take');
    await nodeA.set(key, 'once', 10_000);
    const got = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? nodeA : nodeB).take(key)));
    expect(got.filter((v) => v !== undefined)).toEqual(['once']);
    expect(await nodeA.get(key)).toBeUndefined();
  });

  it('consumes a code with compare-and-delete: a wrong guess leaves it, one right answer wins', async () => {
    const key = k('cas');
    await nodeA.set(key, 'right', 10_000);
    expect(await nodeB.takeIf(key, 'wrong')).toBe(false);
    expect(await nodeB.get(key)).toBe('right');
    const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? nodeA : nodeB).takeIf(key, 'right')));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await nodeA.takeIf(key, 'right')).toBe(false);
  });

  it('refuses an expired code and deletes on request', async () => {
    const key = k('expired');
    await nodeA.set(key, 'late', 100);
    await expire(100);
    expect(await nodeB.takeIf(key, 'late')).toBe(false);
    const other = k('del');
    await nodeA.set(other, 'x', 10_000);
    await nodeB.delete(other);
    expect(await nodeA.get(other)).toBeUndefined();
  });

  it.skipIf(backend.kind === 'redis')('cleans up expired rows and keeps live ones', async () => {
    const live = k('live');
    const dead = k('dead');
    await nodeA.set(dead, 'x', 50);
    await nodeA.set(live, 'y', 60_000);
    clock += 51;
    expect(await nodeA.cleanup()).toBeGreaterThanOrEqual(1);
    expect(await nodeB.get(live)).toBe('y');
    const rows = await open.db!.db.selectFrom('shared_state').select('expires_at').execute();
    expect(rows.every((r) => Number(r.expires_at) > clock)).toBe(true);
  });
});
