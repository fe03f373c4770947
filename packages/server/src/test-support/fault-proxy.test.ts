import { startFakeOpenAI, startFaultProxy, type FakeOpenAI, type FaultProxy } from '@modelgate/testkit';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/**
 * The testkit fault proxy (packages/testkit/src/fault-proxy) against the real things it sits in
 * front of: every fault mode seen by a pg client, an ioredis client and an HTTP client of an
 * upstream fake, then restored.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Settles with 'pending' when `p` has not settled within `ms`. */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, sleep(ms).then(() => 'pending' as const)]);
const timed = async <T>(f: () => Promise<T>) => {
  const t = Date.now();
  const value = await f();
  return { value, ms: Date.now() - t };
};

describe.skipIf(!process.env.TEST_PG_URL)('fault proxy in front of PostgreSQL (pg)', () => {
  let proxy: FaultProxy;
  const clients: pg.Client[] = [];
  const connect = async () => {
    const c = new pg.Client({ connectionString: proxy.url(), connectionTimeoutMillis: 3000 });
    c.on('error', () => {});
    clients.push(c);
    await c.connect();
    return c;
  };
  const one = async (c: pg.Client) => (await c.query<{ v: number }>('SELECT 1 AS v')).rows[0]!.v;

  beforeAll(async () => {
    proxy = await startFaultProxy(process.env.TEST_PG_URL!);
  });
  afterEach(async () => {
    proxy.restore();
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => {})));
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('forwards faithfully, and adds latency to every round trip', async () => {
    const c = await connect();
    expect(await one(c)).toBe(1);
    proxy.latency(150);
    const { value, ms } = await timed(() => one(c));
    expect(value).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(250);
  });

  it('refuses new connections while open ones go on; restore lets them in again', async () => {
    const open = await connect();
    proxy.refuse();
    await expect(connect()).rejects.toThrow();
    expect(await one(open)).toBe(1);
    proxy.restore();
    expect(await one(await connect())).toBe(1);
  });

  it('resets open connections; new ones work', async () => {
    const c = await connect();
    const failed = new Promise((resolve) => c.once('error', resolve));
    proxy.reset();
    await failed;
    await expect(one(c)).rejects.toThrow();
    expect(await one(await connect())).toBe(1);
  });

  it('blackholes: a query gets no answer until restore, then it arrives', async () => {
    const c = await connect();
    proxy.blackhole();
    const q = one(c);
    expect(await within(q, 500)).toBe('pending');
    await expect(within(connect(), 300)).resolves.toBe('pending');
    proxy.restore();
    expect(await q).toBe(1);
  });

  it('drips the answer a few bytes at a time, intact', async () => {
    const c = await connect();
    proxy.drip(8, 10);
    const { value, ms } = await timed(() => c.query<{ s: string }>("SELECT repeat('x', 200) AS s"));
    expect(value.rows[0]!.s).toBe('x'.repeat(200));
    expect(ms).toBeGreaterThanOrEqual(200);
  });

  it('cuts a connection after N bytes, mid-answer', async () => {
    const c = await connect();
    proxy.cutAfter(100);
    await expect(c.query("SELECT repeat('x', 5000) AS s")).rejects.toThrow();
    expect(proxy.connections).toBe(0);
  });

  it('turns answers into garbage, and injects garbage into an idle connection', async () => {
    // A garbled reply can fail the query or leave the client waiting for a length it read: either
    // way the answer never comes back right.
    const answer = (c: pg.Client) => within(one(c).catch(() => 'failed' as const), 1500);
    const c = await connect();
    proxy.garbage();
    expect(await answer(c)).not.toBe(1);
    proxy.restore();
    const idle = await connect();
    proxy.inject();
    expect(await answer(idle)).not.toBe(1);
    expect(await one(await connect())).toBe(1);
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('fault proxy in front of Redis (ioredis)', () => {
  let proxy: FaultProxy;
  const clients: Redis[] = [];
  const connect = async () => {
    // No reconnects and no offline queue: each fault shows in the command it hits.
    const r = new Redis(proxy.url(), { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null, commandTimeout: 2000 });
    r.on('error', () => {});
    clients.push(r);
    await r.connect();
    return r;
  };

  beforeAll(async () => {
    proxy = await startFaultProxy(process.env.TEST_REDIS_URL!);
  });
  afterEach(() => {
    proxy.restore();
    for (const r of clients.splice(0)) r.disconnect();
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('forwards faithfully, and adds latency', async () => {
    const r = await connect();
    expect(await r.ping()).toBe('PONG');
    proxy.latency(150);
    const { value, ms } = await timed(() => r.ping());
    expect(value).toBe('PONG');
    expect(ms).toBeGreaterThanOrEqual(250);
  });

  it('refuses new connections; resets open ones', async () => {
    const r = await connect();
    proxy.refuse();
    await expect(connect()).rejects.toThrow();
    expect(await r.ping()).toBe('PONG');
    proxy.restore();
    const closed = new Promise((resolve) => r.once('close', resolve));
    proxy.reset();
    await closed;
    await expect(r.ping()).rejects.toThrow();
    expect(await (await connect()).ping()).toBe('PONG');
  });

  it('blackholes until restore (the command times out, a held one then completes)', async () => {
    const r = await connect();
    const held = new Redis(proxy.url(), { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    held.on('error', () => {});
    clients.push(held);
    await held.connect();
    proxy.blackhole();
    await expect(r.ping()).rejects.toThrow(/timed out/i);
    const echo = held.echo('after the partition');
    expect(await within(echo, 300)).toBe('pending');
    proxy.restore();
    expect(await echo).toBe('after the partition');
  });

  it('drips a value intact, cuts after N bytes, and garbles replies', async () => {
    const r = await connect();
    const key = `fault-proxy-${Date.now()}`;
    await r.set(key, 'v'.repeat(300), 'EX', 60);
    proxy.drip(16, 5);
    expect(await r.get(key)).toBe('v'.repeat(300));
    proxy.restore();
    proxy.cutAfter(50);
    await expect(r.get(key)).rejects.toThrow();
    proxy.restore();
    const g = await connect();
    proxy.garbage();
    await expect(g.get(key)).rejects.toThrow();
  });
});

describe('fault proxy in front of an HTTP upstream (testkit OpenAI fake)', () => {
  let fake: FakeOpenAI;
  let proxy: FaultProxy;
  const body = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const stream = (signal?: AbortSignal) =>
    fetch(`${proxy.url(fake.url)}/v1/chat/completions`, { method: 'POST', signal, headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', connection: 'close' }, body });

  beforeAll(async () => {
    fake = await startFakeOpenAI({ chunkCount: 10, chunkDelayMs: 5 });
    proxy = await startFaultProxy(fake.url);
  });
  afterEach(() => proxy.restore());
  afterAll(async () => {
    await proxy.close();
    await fake.close();
  });

  it('forwards a stream whole, slowly with latency or drip', async () => {
    expect(await (await stream()).text()).toContain('[DONE]');
    proxy.latency(100);
    const slow = await timed(async () => (await stream()).text());
    expect(slow.value).toContain('[DONE]');
    expect(slow.ms).toBeGreaterThanOrEqual(200);
    proxy.restore();
    proxy.drip(64, 5);
    expect(await (await stream()).text()).toContain('[DONE]');
  });

  it('refuses, blackholes and garbles', async () => {
    proxy.refuse();
    await expect(stream()).rejects.toThrow();
    proxy.restore();
    proxy.blackhole();
    await expect(stream(AbortSignal.timeout(500))).rejects.toThrow();
    proxy.restore();
    proxy.garbage();
    await expect(stream(AbortSignal.timeout(3000)).then((r) => r.text())).rejects.toThrow();
  });

  it('cuts a stream mid-way, and resets one that is open', async () => {
    proxy.cutAfter(600);
    const cut = await stream();
    await expect(cut.text()).rejects.toThrow();
    proxy.restore();
    const slowFake = await startFakeOpenAI({ chunkCount: 100, chunkDelayMs: 20 });
    const hop = await startFaultProxy(slowFake.url);
    try {
      const res = await fetch(`${hop.url(slowFake.url)}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' }, body });
      const reader = res.body!.getReader();
      await reader.read();
      hop.reset();
      await expect((async () => {
        for (;;) if ((await reader.read()).done) return 'ended cleanly';
      })()).rejects.toThrow();
    } finally {
      await hop.close();
      await slowFake.close();
    }
  });
});
