import { expectedChatUsage, startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../test-support/api-client.js';
import { expectedCharge } from '../test-support/expected-charge.js';
import { startNode, waitForWorkers, within, workerPids, type NodeProcess } from '../test-support/multinode.js';
import { addChannel } from '../test-support/relay-fixtures.js';

/**
 * WORKERS=2 on SQLite without Redis (docs/architecture.md#several-nodes): one port served by two
 * worker processes that share what must be shared over IPC through their primary — cache
 * invalidation, so a token disabled through one worker is refused by both at once, and the rate-limit
 * store, so a limit holds for the machine — while every call is billed exactly once. The primary
 * replaces a killed worker, whose successor releases what it held, and stops them all on SIGTERM.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const usage = expectedChatUsage({ messages, max_tokens: 5 });
/** gpt-4: ratio 15, completion ratio 2. */
const COST = expectedCharge({ model: 'gpt-4' }, { prompt: usage.prompt_tokens, completion: usage.completion_tokens });
const METRICS_TOKEN = 'cluster-metrics-token';
const START_QUOTA = 100_000_000;
const TOKEN_QUOTA = 50_000_000;
const RPM = 8;

/** A chat call on a connection of its own (no keep-alive), so the kernel picks the worker anew. */
function freshChat(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: 'gpt-4', messages, max_tokens: 5 });
    const req = http.request(`${url}/v1/chat/completions`, { method: 'POST', agent: false, headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('two workers on one port (SQLite, no Redis)', () => {
  let fake: FakeOpenAI;
  let slow: FakeOpenAI;
  let dir: string;
  let node: NodeProcess;
  let root: ApiClient;
  let user: ApiClient;
  let userId: number;
  let token: { id: number; key: string };
  /** Calls answered 200, each billed COST to the user (and to `token` for those made with it). */
  let billed = 0;
  let billedToToken = 0;

  /** modelgate_worker_requests_total by worker, from GET /metrics (aggregated by the primary, whichever worker answers). */
  async function requestsByWorker(): Promise<number[]> {
    const res = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    return [0, 1].map((w) => Number(new RegExp(`^modelgate_worker_requests_total\\{worker="${w}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN));
  }

  /**
   * Runs `call` in batches of 10 until both workers took at least one of them (proven by the per-worker
   * counters: each rose by 2 or more across a batch, one of which may be the /metrics read itself),
   * and at least `min` calls were made. Returns every call's result.
   */
  async function onBothWorkers<T>(min: number, call: () => Promise<T>): Promise<T[]> {
    const results: T[] = [];
    const reached = [false, false];
    while (results.length < 300) {
      const before = await requestsByWorker();
      for (let i = 0; i < 10; i++) results.push(await call());
      const after = await requestsByWorker();
      for (const w of [0, 1]) if (after[w]! - before[w]! >= 2) reached[w] = true;
      if (reached[0] && reached[1] && results.length >= min) return results;
    }
    throw new Error(`after ${results.length} calls on fresh connections, not both workers were reached: ${JSON.stringify(reached)}`);
  }

  /** The node ids holding open reservations, read from the database file as an operator would. */
  function reservations(): string[] {
    const db = new Database(path.join(dir, 'db.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT node_id FROM reservations').all() as Array<{ node_id: string }>).map((r) => r.node_id);
    } finally {
      db.close();
    }
  }

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    // About two seconds per stream: long enough to kill the worker serving one.
    slow = await startFakeOpenAI({ chunkCount: 40, chunkDelayMs: 50 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-workers-'));
    node = await startNode({ SQLITE_PATH: path.join(dir, 'db.sqlite'), SQL_DSN: '', REDIS_CONN_STRING: '', NODE_ID: 'workers', WORKERS: '2', LOG_LEVEL: 'debug', SYNC_FREQUENCY: '600' });
    await node.waitForOutput(/listening on http:\/\/localhost:\d+ \(node workers, 2 workers, database: sqlite\)/, 30_000);
    await waitForWorkers(node, 2);
    root = await rootClient(node.url);
    expect((await root.put('/api/option/', { key: 'MetricsToken', value: METRICS_TOKEN })).body.success).toBe(true);
    await addChannel(root, { name: 'fake', base_url: fake.url, models: 'gpt-4' });
    await addChannel(root, { name: 'slow', base_url: slow.url, models: 'gpt-4o-mini' });
    const username = `w${Math.random().toString(36).slice(2, 10)}`;
    expect((await root.post('/api/user/', { username, password: 'password123' })).body.success).toBe(true);
    const found = await root.get(`/api/user/search?keyword=${username}`);
    userId = Number((found.body.data.items ?? found.body.data)[0].id);
    expect((await root.put('/api/user/', { id: userId, quota: START_QUOTA })).body.success).toBe(true);
    user = new ApiClient(node.url);
    expect((await user.login(username, 'password123')).body.success).toBe(true);
    const created = await user.post('/api/token/', { name: 'workers', remain_quota: TOKEN_QUOTA, unlimited_quota: false, expired_time: -1 });
    expect(created.body.success).toBe(true);
    token = { id: created.body.data.id, key: created.body.data.key };
  }, 90_000);
  afterAll(async () => {
    await node?.stop();
    await fake?.close();
    await slow?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names each worker a node of its own: <NODE_ID>-w<slot>', () => {
    const pids = workerPids(node);
    expect([...pids.keys()].sort()).toEqual([0, 1]);
    expect(pids.get(0)!.nodeId).toBe('workers-w0');
    expect(pids.get(1)!.nodeId).toBe('workers-w1');
    expect(pids.get(0)!.pid).not.toBe(pids.get(1)!.pid);
    expect(node.output().match(/"msg":"listening on /g)).toHaveLength(1);
  });

  it('relays on both workers, calls on fresh connections', async () => {
    const statuses = await onBothWorkers(20, () => freshChat(node.url, token.key));
    expect(new Set(statuses)).toEqual(new Set([200]));
    billed += statuses.length;
    billedToToken += statuses.length;
  });

  it('refuses on every worker, at once, a token disabled through one of them', async () => {
    const off = await user.put('/api/token/?status_only=true', { id: token.id, status: 2 });
    expect(off.body.success).toBe(true);
    const changed = Date.now();
    expect(await within(1000, async () => (await freshChat(node.url, token.key)) === 401)).toBeLessThanOrEqual(1000);
    // A second after the change every call is refused, whichever worker takes it (SYNC_FREQUENCY is
    // 600 s: only the invalidation the other worker got over IPC can have dropped its cached token).
    await sleep(Math.max(0, changed + 1000 - Date.now()));
    const statuses = await onBothWorkers(20, () => freshChat(node.url, token.key));
    expect(new Set(statuses)).toEqual(new Set([401]));
  });

  it('holds a token\'s requests-per-minute limit across workers: call K+1 is refused whichever worker takes it', async () => {
    const created = await user.post('/api/token/', { name: 'limited', unlimited_quota: true, expired_time: -1, rpm_limit: RPM });
    expect(created.body.success).toBe(true);
    const key = created.body.data.key as string;
    // The limit is a sliding minute: well before a minute's end, every call below falls in one.
    while (Date.now() % 60_000 > 40_000) await sleep(250);
    const allowed: number[] = [];
    for (let i = 0; i < RPM; i++) allowed.push(await freshChat(node.url, key));
    expect(allowed).toEqual(Array(RPM).fill(200));
    billed += RPM;
    // Workers with stores of their own would each have seen only part of the RPM calls and let these through.
    const over = await onBothWorkers(10, () => freshChat(node.url, key));
    expect(new Set(over)).toEqual(new Set([429]));
  });

  it('replaces a worker killed mid-stream in its slot: same node id, its reservation released by its successor, serving again', async () => {
    const on = await user.put('/api/token/?status_only=true', { id: token.id, status: 1 });
    expect(on.body.success).toBe(true);
    const res = await fetch(`${node.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    // The stream's reservation names the worker that holds it.
    const held = reservations();
    expect(held).toHaveLength(1);
    const slot = Number(/^workers-w(\d)$/.exec(held[0]!)![1]);
    const old = workerPids(node).get(slot)!;
    process.kill(old.pid, 'SIGKILL');
    void reader.cancel().catch(() => undefined);
    await node.waitForOutput(new RegExp(`worker ${slot} was killed by SIGKILL unexpectedly; starting a new one`));
    await node.waitForOutput(new RegExp(`worker ${slot} is serving again`), 30_000);
    // The new worker's own line comes from another process than the primary's: in either order.
    expect(await within(10_000, async () => workerPids(node).get(slot)!.pid !== old.pid)).toBeLessThan(Infinity);
    expect(workerPids(node).get(slot)!.nodeId).toBe(`workers-w${slot}`);
    // Released at its start by the same node id, long before the 60 s lease would let another worker do it.
    const released = await node.waitForOutput(/released 1 reservation\(s\) left by an unfinished run/);
    expect(JSON.parse(released)).toMatchObject({ node: `workers-w${slot}` });
    expect(reservations()).toEqual([]);
    const statuses = await onBothWorkers(10, () => freshChat(node.url, token.key));
    expect(new Set(statuses)).toEqual(new Set([200]));
    billed += statuses.length;
    billedToToken += statuses.length;
  });

  it('bills every answered call exactly once: balances, logs and the ledger add up', async () => {
    const me = (await user.get('/api/user/self')).body.data as { quota: number; used_quota: number };
    expect(Number(me.used_quota)).toBe(billed * COST);
    expect(Number(me.quota)).toBe(START_QUOTA - billed * COST);
    const t = (await user.get(`/api/token/${token.id}`)).body.data as { remain_quota: number; used_quota: number };
    expect(Number(t.used_quota)).toBe(billedToToken * COST);
    expect(Number(t.remain_quota)).toBe(TOKEN_QUOTA - billedToToken * COST);
    const mine: Array<{ user_id: number; quota: number }> = [];
    for (let p = 1; ; p++) {
      const items = (await root.get(`/api/log/?p=${p}&page_size=100&type=2&username=`)).body.data.items as Array<{ user_id: number; quota: number }>;
      mine.push(...items.filter((l) => Number(l.user_id) === userId));
      if (items.length < 100) break;
    }
    expect(mine).toHaveLength(billed);
    expect(mine.reduce((s, l) => s + Number(l.quota), 0)).toBe(billed * COST);
    const check = await root.get('/api/ledger/check');
    expect(check.body.data).toMatchObject({ ok: true, requests: { open: 0 } });
  });

  it('stops every worker on SIGTERM to the primary and exits 0', async () => {
    const pids = [...workerPids(node).values()].map((w) => w.pid);
    node.kill('SIGTERM');
    expect(await node.exited).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    // Each worker stopped gracefully, then the primary; none was restarted meanwhile.
    expect(node.output().match(/"msg":"stopped"/g)).toHaveLength(3);
    expect(node.output()).not.toMatch(/exited with code 0 unexpectedly/);
  });
});
