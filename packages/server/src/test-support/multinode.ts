import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlKind } from '../config/config.js';
import { createTestDatabase, type TestDatabase } from './test-db.js';
import { refuseInFastTier } from './test-server.js';

/**
 * Real ModelGate server processes for multi-node tests: `node packages/server/dist/main.js` with
 * its own environment, so nothing is shared between nodes but the database and Redis. Build
 * first: `npx tsc -b packages/shared packages/testkit packages/server`.
 */

export const MAIN_JS = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const START_SCRIPT = fileURLToPath(new URL('../../../../scripts/start.mjs', import.meta.url));

export interface NodeProcess {
  url: string;
  pid: number;
  nodeId: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first output line matching `re` (also ones already written). */
  waitForOutput(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Settles when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal now (SIGKILL by default: a crash). */
  kill(signal?: NodeJS.Signals): void;
  /** Sends a signal to the node's whole process group (`viaStartScript` nodes: the script and the server). */
  killGroup(signal: NodeJS.Signals): void;
  /** Graceful stop (SIGTERM), then SIGKILL if it has not exited within 5 s. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
// A test run that dies (or forgets to stop a node) must not leave servers behind.
process.once('exit', () => {
  for (const child of live) {
    try {
      // A node started in its own process group (viaStartScript): the script and the server.
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
});

let spoolDir: string | undefined;
function spoolRoot(): string {
  return (spoolDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'mg-node-spool-')));
}

/** Environment every test node gets unless overridden: no rate limits, no console, one session secret. */
export function baseNodeEnv(): Record<string, string> {
  return {
    SESSION_SECRET: 'multinode-test-secret',
    GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
    GLOBAL_API_USER_RATE_LIMIT_ENABLE: 'false',
    // Fixtures sign up with simple passwords (password123); the check has its own tests.
    REJECT_COMMON_PASSWORDS: 'false',
    GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
    CRITICAL_RATE_LIMIT_ENABLE: 'false',
    WEB_DIST_DIR: '/nonexistent-modelgate-web',
    LOG_LEVEL: 'info',
    // One process per node, as these suites test nodes; cluster/*.api.test.ts sets WORKERS for its own.
    WORKERS: '1',
    // This test process's own outage spools (a node restarted with the same NODE_ID finds its own).
    SPOOL_DIR: spoolRoot(),
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `GET /api/status` until it answers 200; fails early when `child` exits. */
export async function waitForReady(url: string, timeoutMs = 30_000, child?: Pick<NodeProcess, 'exited' | 'output'>): Promise<void> {
  let exited = false;
  void child?.exited.then(() => (exited = true));
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`node at ${url} exited before it was ready:\n${child!.output()}`);
    try {
      const res = await fetch(`${url}/api/status`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > end) throw new Error(`node at ${url} not ready after ${timeoutMs} ms:\n${child?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts one server process with `env` over the base environment (PORT defaults to a free port,
 * NODE_ID to `node-<port>`) and waits until it serves requests.
 */
export async function startNode(env: Record<string, string>, opts: { readyTimeoutMs?: number; viaStartScript?: boolean; waitReady?: boolean } = {}): Promise<NodeProcess> {
  refuseInFastTier('startNode');
  if (!fs.existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: run \`npx tsc -b packages/shared packages/testkit packages/server\` first`);
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const nodeId = env.NODE_ID ?? `node-${port}`;
  // `viaStartScript`: as `npm start` runs it (scripts/start.mjs, without its build step), in a
  // process group of its own, so a test can signal the group as a terminal or systemd does.
  const args = opts.viaStartScript ? [START_SCRIPT] : [MAIN_JS];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...baseNodeEnv(), ...env, PORT: String(port), NODE_ID: nodeId, START_SKIP_BUILD: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.viaStartScript === true,
  });
  live.add(child);
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close', not 'exit': by then everything the process wrote has been read.
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const node: NodeProcess = {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    nodeId,
    output: () => out,
    exited,
    waitForOutput(re, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = out.split('\n').find((l) => re.test(l));
          if (line === undefined) return;
          cleanup();
          resolve(line);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no output matching ${re} from ${nodeId} within ${timeoutMs} ms:\n${out}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    killGroup(signal) {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, signal);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  if (opts.waitReady === false) return node;
  try {
    await waitForReady(node.url, opts.readyTimeoutMs, node);
  } catch (e) {
    node.kill('SIGKILL');
    throw e;
  }
  return node;
}

/**
 * The pid of each worker slot of a node started with WORKERS > 1 and LOG_LEVEL=debug, from the line
 * each worker logs once it listens (cluster/primary.ts); a restarted slot's newest pid.
 */
export function workerPids(node: Pick<NodeProcess, 'output'>): Map<number, { pid: number; nodeId: string }> {
  const pids = new Map<number, { pid: number; nodeId: string }>();
  for (const line of node.output().split('\n')) {
    if (!/"msg":"worker \d+ listening/.test(line)) continue;
    const entry = JSON.parse(line) as { pid: number; worker: number; node: string };
    pids.set(entry.worker, { pid: entry.pid, nodeId: entry.node });
  }
  return pids;
}

/**
 * Waits until a node started with WORKERS=`count` (and LOG_LEVEL=debug) serves on every worker: the
 * primary's line and each worker's own (written by another process, so in either order); their pids.
 */
export async function waitForWorkers(node: Pick<NodeProcess, 'output' | 'waitForOutput'>, count: number, timeoutMs = 30_000): Promise<Map<number, { pid: number; nodeId: string }>> {
  await node.waitForOutput(new RegExp(`"msg":"listening on .*, ${count} workers`), timeoutMs);
  for (let slot = 0; slot < count; slot++) await node.waitForOutput(new RegExp(`"msg":"worker ${slot} listening`), timeoutMs);
  return workerPids(node);
}

/** Polls until `probe` returns true; the elapsed ms, or Infinity when `limitMs` passed first. */
export async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (Date.now() - start <= limitMs) {
    if (await probe()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 20));
  }
  return Infinity;
}

/** The kinds a multi-node suite can run on: PostgreSQL and MySQL when their test URLs are set. */
export function multiNodeDbKinds(): Array<Exclude<SqlKind, 'sqlite'>> {
  const kinds: Array<Exclude<SqlKind, 'sqlite'>> = [];
  if (process.env.TEST_PG_URL) kinds.push('postgres');
  if (process.env.TEST_MYSQL_URL) kinds.push('mysql');
  return kinds;
}

let redisDbCounter = Math.floor(Math.random() * 12);

/**
 * TEST_REDIS_URL on a Redis database of its own (1–15): nodes sharing a Redis database form one
 * cluster (locks and invalidation messages are scoped to it), so concurrent suites stay apart.
 */
export function isolatedRedisUrl(): string {
  const url = new URL(process.env.TEST_REDIS_URL!);
  url.pathname = `/${(redisDbCounter++ % 15) + 1}`;
  return url.toString();
}

export interface TestCluster {
  database: TestDatabase;
  redisUrl: string;
  nodes: NodeProcess[];
  /** Stops every node (SIGKILL after 5 s) and drops the database. */
  close(): Promise<void>;
}

/**
 * A fresh database and Redis database, then the nodes one after another (the first should be a
 * master: it migrates and creates root). `env` goes to every node, `nodes[i].env` to one.
 */
export async function startCluster(opts: {
  kind: Exclude<SqlKind, 'sqlite'>;
  nodes: Array<{ nodeType: 'master' | 'slave'; env?: Record<string, string> }>;
  env?: Record<string, string>;
}): Promise<TestCluster> {
  const database = await createTestDatabase(opts.kind);
  const redisUrl = isolatedRedisUrl();
  const nodes: NodeProcess[] = [];
  const close = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await database.drop();
  };
  try {
    for (const [i, spec] of opts.nodes.entries()) {
      const env = { ...database.env, REDIS_CONN_STRING: redisUrl, NODE_TYPE: spec.nodeType, NODE_ID: `node-${String.fromCharCode(65 + i)}`, ...opts.env, ...spec.env };
      nodes.push(await startNode(env));
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { database, redisUrl, nodes, close };
}
