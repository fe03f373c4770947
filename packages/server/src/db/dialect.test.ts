import { OPTION_KEYS, OPTION_REGISTRY } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../crypto/secret-box.js';
import { OptionsService } from '../modules/options/options.service.js';
import { testDbKinds, useMigratedDb } from '../test-support/test-db.js';
import { insertIgnore, isUniqueViolation, upsert } from './dialect.js';

// Secret options are stored sealed (crypto/secret-box.ts): their raw rows are not the values saved.
const TEXT_KEYS = OPTION_KEYS.filter((key) => OPTION_REGISTRY[key].kind === 'string' && OPTION_REGISTRY[key].access !== 'secret').slice(0, 10);
const secrets = new SecretBox({ current: 'dialect-test' });

describe.each(testDbKinds())('dialect seam on %s', (kind) => {
  const handle = useMigratedDb(kind);

  it('upserts: inserts a new key, overwrites only the named columns of an existing one', async () => {
    await upsert(handle().db, kind, 'job_locks', { name: 'u1', owner: 'a', expires_at: 1 }, ['name'], ['expires_at']);
    await upsert(handle().db, kind, 'job_locks', { name: 'u1', owner: 'b', expires_at: 2 }, ['name'], ['expires_at']);
    const row = await handle().db.selectFrom('job_locks').selectAll().where('name', '=', 'u1').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ owner: 'a', expires_at: 2 });
  });

  it('insert-ignore reports whether it inserted; of 20 racing inserts exactly one wins', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => insertIgnore(handle().db, kind, 'job_locks', { name: 'race', owner: `o${i}`, expires_at: i })));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    const row = await handle().db.selectFrom('job_locks').selectAll().where('name', '=', 'race').executeTakeFirstOrThrow();
    expect(row.owner).toBe(`o${winner}`);
    expect(await insertIgnore(handle().db, kind, 'job_locks', { name: 'race', owner: 'late', expires_at: 0 })).toBe(false);
  });

  it('recognises a unique violation on this database', async () => {
    const err = await handle().db
      .insertInto('job_locks')
      .values({ name: 'race', owner: 'dup', expires_at: 0 })
      .execute()
      .then(() => null, (e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(isUniqueViolation(new Error('other'))).toBe(false);
  });

  it('saves options 100 at a time on fresh keys without a rejection, and the last save wins', async () => {
    // Two services: two nodes over one database, both saving the same never-written keys.
    const nodeA = new OptionsService(handle(), secrets);
    const nodeB = new OptionsService(handle(), secrets);
    const saves = Array.from({ length: 100 }, (_, i) => {
      const key = TEXT_KEYS[i % TEXT_KEYS.length]!;
      return (i % 2 ? nodeA : nodeB).set(key, `v${i}`);
    });
    const settled = await Promise.allSettled(saves);
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    const rows = await handle().db.selectFrom('options').select(['key', 'value']).where('key', 'in', TEXT_KEYS).execute();
    expect(rows).toHaveLength(TEXT_KEYS.length);
    for (const r of rows) {
      // The stored value is one of that key's writes, and the writing node's cache agrees with it.
      const idx = Number(r.value.slice(1));
      expect(TEXT_KEYS[idx % TEXT_KEYS.length]).toBe(r.key);
    }
    for (const [i, key] of TEXT_KEYS.entries()) {
      await (i % 2 ? nodeA : nodeB).set(key, `last-${i}`);
      await nodeA.reloadKey(key);
      await nodeB.reloadKey(key);
      expect(nodeA.str(key)).toBe(`last-${i}`);
      expect(nodeB.str(key)).toBe(`last-${i}`);
    }
    const after = await handle().db.selectFrom('options').select(['key', 'value']).where('key', 'in', TEXT_KEYS).execute();
    expect(Object.fromEntries(after.map((r) => [r.key, r.value]))).toEqual(Object.fromEntries(TEXT_KEYS.map((k, i) => [k, `last-${i}`])));
  });

  it("keeps one node's cache equal to the database after its own concurrent saves of one key", async () => {
    const node = new OptionsService(handle(), secrets);
    const key = TEXT_KEYS[0]!;
    await Promise.all(Array.from({ length: 30 }, (_, i) => node.set(key, `same-${i}`)));
    const row = await handle().db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirstOrThrow();
    expect(node.str(key)).toBe(row.value);
  });
});
