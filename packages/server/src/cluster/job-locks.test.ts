import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../jobs/scheduler.js';
import { captureLogger } from '../test-support/capture-logger.js';
import { openBackend, testBackends, type OpenBackend } from '../test-support/backends.js';
import { DbJobLocks, RedisJobLocks, type JobLocks } from './job-locks.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(testBackends())('job locks on $name', (backend) => {
  let open: OpenBackend;
  const nodes: JobLocks[] = [];
  const name = (n: string) => `test-${randomBytes(5).toString('hex')}-${n}`;

  beforeAll(async () => {
    open = await openBackend(backend);
    for (let i = 0; i < 4; i++) {
      const owner = `node-${i}/${randomBytes(2).toString('hex')}`;
      nodes.push(backend.kind === 'redis' ? new RedisJobLocks(await open.redis(), owner) : new DbJobLocks(open.db!, owner));
    }
  });
  afterAll(async () => {
    await open?.close();
  });

  it('gives a free lock to exactly one of many racing nodes', async () => {
    const job = name('race');
    const tries = await Promise.all(Array.from({ length: 20 }, (_, i) => nodes[i % 4]!.acquire(job, 10_000)));
    expect(tries.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    // Every success belongs to one node (it may re-acquire its own lock), never two.
    const winners = new Set(tries.map((ok, i) => (ok ? i % 4 : -1)).filter((i) => i >= 0));
    expect(winners.size).toBe(1);
  });

  it('lets only the owner extend or release; another node takes over once it expires', async () => {
    const [a, b] = nodes as [JobLocks, JobLocks];
    const job = name('lease');
    expect(await a.acquire(job, 300)).toBe(true);
    expect(await b.acquire(job, 300)).toBe(false);
    expect(await b.extend(job, 300)).toBe(false);
    await b.release(job);
    expect(await b.acquire(job, 300)).toBe(false);
    expect(await a.extend(job, 300)).toBe(true);
    expect(await a.acquire(job, 300)).toBe(true);
    await sleep(350);
    expect(await b.acquire(job, 300)).toBe(true);
    expect(await a.extend(job, 300)).toBe(false);
    await b.release(job);
    expect(await a.acquire(job, 300)).toBe(true);
  });

  it('runs an exclusive job on one node at a time, renewing the lock while it runs', async () => {
    const job = name('exclusive');
    const [a, b] = nodes.map((l, i) => new Scheduler(l, `node-${i}`, captureLogger().log)) as [Scheduler, Scheduler];
    let concurrent = 0;
    let peak = 0;
    const work = async () => {
      concurrent++;
      peak = Math.max(peak, concurrent);
      // Longer than the 150 ms TTL: only the renewal keeps the other node out.
      await sleep(400);
      concurrent--;
      return 'done';
    };
    const first = a.runExclusive(job, 150, work);
    await sleep(50);
    const during = await Promise.all([b.runExclusive(job, 150, work), sleep(200).then(() => b.runExclusive(job, 150, work))]);
    expect(during).toEqual([{ ran: false }, { ran: false }]);
    expect(await first).toEqual({ ran: true, value: 'done' });
    expect(peak).toBe(1);
    // Released at the end: the other node may run it now.
    expect(await b.runExclusive(job, 150, async () => 'second')).toEqual({ ran: true, value: 'second' });
  });

  it('releases the lock when the job throws and passes the error on', async () => {
    const job = name('throws');
    const [a, b] = nodes.map((l, i) => new Scheduler(l, `node-${i}`, captureLogger().log)) as [Scheduler, Scheduler];
    await expect(a.runExclusive(job, 10_000, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await b.runExclusive(job, 10_000, async () => 1)).toEqual({ ran: true, value: 1 });
  });

  it('runs a periodic job on one node only, and another node takes over when that one stops', async () => {
    const job = name('periodic');
    const runs: number[] = [];
    const schedulers = nodes.map((l, i) => new Scheduler(l, `node-${i}`, captureLogger().log));
    const stops = schedulers.map((s, i) =>
      s.every(job, 100, async () => {
        runs.push(i);
      }),
    );
    await sleep(1050);
    const owners = new Set(runs);
    expect(owners.size).toBe(1);
    // At most one run per period across all four nodes (ten periods passed).
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.length).toBeLessThanOrEqual(11);
    const owner = runs[0]!;
    stops[owner]!();
    await schedulers[owner]!.stop();
    const before = runs.length;
    await sleep(600);
    const after = runs.slice(before);
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(new Set(after).size).toBe(1);
    expect(after[0]).not.toBe(owner);
    await Promise.all(schedulers.map((s) => s.stop()));
  });

  it('logs a failing periodic job with its name and node, then retries it on the next tick', async () => {
    const job = name('failing');
    const { log, lines } = captureLogger();
    const s = new Scheduler(nodes[0]!, 'node-x', log);
    let calls = 0;
    s.every(job, 80, async () => {
      calls++;
      if (calls === 1) throw new Error('upstream down');
    });
    await sleep(300);
    await s.stop();
    expect(calls).toBeGreaterThanOrEqual(2);
    const failure = lines.find((l) => l.level === 'error');
    expect(failure?.obj).toMatchObject({ job, node: 'node-x' });
    expect((failure?.obj.err as Error).message).toBe('upstream down');
    expect(lines.some((l) => l.level === 'debug' && l.obj.job === job && l.msg === `job ${job} finished`)).toBe(true);
  });
});
