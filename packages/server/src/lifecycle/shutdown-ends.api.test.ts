import { startFakeOpenAI, startFaultProxy, type FakeOpenAI } from '@modelgate/testkit';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient } from '../test-support/api-client.js';
import { rootTokenKey as tokenKey } from '../test-support/node-caller.js';
import { baseNodeEnv, freePort, MAIN_JS, startNode, waitForReady, type NodeProcess } from '../test-support/multinode.js';
import { createTestDatabase, type TestDatabase } from '../test-support/test-db.js';
import { SETTLE_GRACE_MS } from './graceful-close.js';
import { CLOSE_MARGIN_MS, REPEAT_SIGNAL_MS } from './hard-exit.js';

/**
 * Issue 38 item 7: a stop always ends. SIGTERM to a server restarted on the database a SIGKILLed node
 * left, and to a server whose stdout reader has stopped reading or is gone, ends the process with
 * exit code 0 — the graceful stop finished; nothing held the process until the hard deadline
 * (lifecycle/hard-exit.ts), which would exit 1 and name what was still open.
 */
const SHUTDOWN_TIMEOUT = 2;
/** The hard deadline: any stop must be over by then, whatever holds the process. */
const HARD_MS = SHUTDOWN_TIMEOUT * 1000 + SETTLE_GRACE_MS + CLOSE_MARGIN_MS;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ chunkCount: 20, chunkDelayMs: 20 });
});
afterAll(async () => {
  await fake.close();
});

function chat(url: string, key: string, stream: boolean): Promise<number> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    signal: AbortSignal.timeout(5000),
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4', stream, messages: [{ role: 'user', content: 'hello' }] }),
  }).then(
    async (r) => {
      await r.text().catch(() => '');
      return r.status;
    },
    () => 0,
  );
}

/** `count` request loops (every other one streaming) until `stop()`; the statuses seen. */
function requestLoops(url: string, key: string, count: number) {
  let running = true;
  const statuses: number[] = [];
  const loops = Array.from({ length: count }, async (_, i) => {
    while (running) statuses.push(await chat(url, key, i % 2 === 0));
  });
  return {
    statuses,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** SIGTERM, then how the process ended and how long it took. */
async function terminate(node: Pick<NodeProcess, 'kill' | 'exited'>) {
  const t = Date.now();
  node.kill('SIGTERM');
  const end = await Promise.race([node.exited, new Promise<'alive'>((r) => setTimeout(() => r('alive'), HARD_MS + 5000))]);
  return { end, ms: Date.now() - t };
}

describe.each(['sqlite', ...(process.env.TEST_PG_URL ? ['postgres' as const] : []), ...(process.env.TEST_MYSQL_URL ? ['mysql' as const] : [])] as const)(
  'a stop after a crash and a restart on the same database (%s)',
  (kind) => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await db.drop();
    });

    it('SIGTERM ends the restarted server with exit code 0, well before the hard deadline', async () => {
      const env = { ...db.env, SQL_DSN: db.env.SQL_DSN ?? '', REDIS_CONN_STRING: '', NODE_ID: `crash-${kind}`, SHUTDOWN_TIMEOUT: String(SHUTDOWN_TIMEOUT) };
      const first = await startNode(env);
      const key = await tokenKey(first.url, fake.url);
      const loops = requestLoops(first.url, key, 30);
      await new Promise((r) => setTimeout(r, 2500));
      first.kill('SIGKILL');
      await first.exited;
      await loops.stop();
      expect(loops.statuses.filter((s) => s === 200).length).toBeGreaterThan(10);

      const second = await startNode(env);
      const root = await rootClient(second.url);
      for (const path of ['/api/status', '/api/user/self', '/api/token/?p=0&size=10', '/api/log/?p=0&size=10', '/api/channel/?p=0&size=10']) {
        expect((await root.get(path)).status).toBe(200);
      }
      expect(await chat(second.url, key, true)).toBe(200);

      const { end, ms } = await terminate(second);
      expect(end, second.output()).toEqual({ code: 0, signal: null });
      expect(second.output()).toMatch(/"msg":"stopped"/);
      expect(second.output()).not.toMatch(/shutdown did not finish/);
      expect(ms).toBeLessThan(HARD_MS);
    }, 90_000);
  },
);

describe.skipIf(!process.env.TEST_PG_URL)('a stop that cannot finish', () => {
  it('ends at the hard deadline with exit code 1, naming what was still open (PostgreSQL blackholed)', async () => {
    const db = await createTestDatabase('postgres');
    const hop = await startFaultProxy(process.env.TEST_PG_URL!);
    const slow = await startFakeOpenAI({ chunkCount: 400, chunkDelayMs: 50 });
    try {
      const node = await startNode({ ...db.env, SQL_DSN: hop.url(db.env.SQL_DSN), REDIS_CONN_STRING: '', NODE_ID: 'stuck-stop', SHUTDOWN_TIMEOUT: '1' });
      const key = await tokenKey(node.url, slow.url);
      // A stream in flight holds a reservation: the stop must settle it in the database.
      const stream = chat(node.url, key, true);
      await new Promise((r) => setTimeout(r, 500));
      // Every query from now on waits for an answer that never comes: the stream's settlement, the
      // stop's ledger release and the pool's end cannot finish.
      hop.blackhole();
      const { end, ms } = await terminate(node);
      expect(end).toEqual({ code: 1, signal: null });
      expect(ms).toBeGreaterThanOrEqual(1000 + SETTLE_GRACE_MS);
      expect(ms).toBeLessThan(1000 + SETTLE_GRACE_MS + CLOSE_MARGIN_MS + 3000);
      const line = await node.waitForOutput(/shutdown did not finish within 16 s; exiting/);
      expect((JSON.parse(line) as { stillOpen: string[] }).stillOpen.length).toBeGreaterThan(0);
      await stream;
    } finally {
      hop.restore();
      await hop.close();
      await slow.close();
      await db.drop();
    }
  }, 60_000);
});

describe('a second stop signal', () => {
  it('sent after the first one exits at once, cutting the streams the first was letting finish', async () => {
    const db = await createTestDatabase('sqlite');
    const slow = await startFakeOpenAI({ chunkCount: 400, chunkDelayMs: 50 });
    try {
      const node = await startNode({ ...db.env, SQL_DSN: '', REDIS_CONN_STRING: '', NODE_ID: 'second-signal', SHUTDOWN_TIMEOUT: '60' });
      const key = await tokenKey(node.url, slow.url);
      const stream = chat(node.url, key, true);
      await new Promise((r) => setTimeout(r, 500));
      node.kill('SIGTERM');
      await node.waitForOutput(/SIGTERM received, shutting down/);
      await new Promise((r) => setTimeout(r, REPEAT_SIGNAL_MS + 500));
      expect(node.output()).not.toMatch(/"msg":"stopped"/);
      const { end, ms } = await terminate(node);
      expect(end).toEqual({ code: 1, signal: null });
      expect(ms).toBeLessThan(5000);
      expect(node.output()).toMatch(/SIGTERM received again: exiting now/);
      await stream;
    } finally {
      await slow.close();
      await db.drop();
    }
  }, 60_000);
});

describe('`npm start` (scripts/start.mjs) and its process group', () => {
  it('the server stays in the group, so a SIGKILL of the group ends it too', async () => {
    const db = await createTestDatabase('sqlite');
    try {
      const node = await startNode({ ...db.env, SQL_DSN: '', REDIS_CONN_STRING: '', NODE_ID: 'group-kill' }, { viaStartScript: true });
      const line = await node.waitForOutput(/"msg":"listening on/);
      const serverPid = (JSON.parse(line) as { pid: number }).pid;
      expect(serverPid).not.toBe(node.pid);
      node.killGroup('SIGKILL');
      await node.exited;
      const alive = () => {
        try {
          process.kill(serverPid, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(alive()).toBe(false);
    } finally {
      await db.drop();
    }
  }, 60_000);
});

interface Spawned {
  child: ChildProcess;
  url: string;
  stderr(): string;
  kill(signal: NodeJS.Signals): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A server on SQLite whose stdout goes to `stdout` (a stream of ours or of another process). */
async function spawnServer(dir: TestDatabase, stdout: 'pipe' | NodeJS.WritableStream): Promise<Spawned> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...baseNodeEnv(), ...dir.env, SQL_DSN: '', REDIS_CONN_STRING: '', PORT: String(port), NODE_ID: 'pipe-node', SHUTDOWN_TIMEOUT: String(SHUTDOWN_TIMEOUT) },
    stdio: ['ignore', stdout as 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  const s: Spawned = { child, url, stderr: () => err, exited, kill: (sig) => void (child.exitCode === null && child.signalCode === null && child.kill(sig)) };
  try {
    await waitForReady(url, 30_000, { exited, output: () => err });
  } catch (e) {
    s.kill('SIGKILL');
    throw e;
  }
  return s;
}

/** Relay requests to a channel that refuses connections: each writes two warning lines (~1 kB). */
async function logHeavily(url: string, key: string, requests: number): Promise<void> {
  const loops = Array.from({ length: 4 }, async () => {
    for (let i = 0; i < requests / 4; i++) await chat(url, key, false);
  });
  await Promise.all(loops);
}

describe('a stop when stdout cannot be written', () => {
  let dbs: TestDatabase[] = [];
  afterAll(async () => {
    await Promise.all(dbs.map((d) => d.drop()));
    dbs = [];
  });

  it('with a reader that has stopped reading (the pipe is full), SIGTERM still ends the process', async () => {
    const dir = await createTestDatabase('sqlite');
    dbs.push(dir);
    const s = await spawnServer(dir, 'pipe');
    let out = '';
    const onData = (c: Buffer) => (out += c.toString('utf8'));
    s.child.stdout!.on('data', onData);
    const key = await tokenKey(s.url, 'http://127.0.0.1:1');
    expect(out).toMatch(/listening on/);
    // From here on nobody reads: the pipe and its buffers fill up, and the server's writes would block.
    s.child.stdout!.off('data', onData);
    s.child.stdout!.pause();
    await logHeavily(s.url, key, 600);
    expect(await fetch(`${s.url}/api/status`).then((r) => r.status)).toBe(200);
    const { end, ms } = await terminate(s);
    expect(end, s.stderr()).toEqual({ code: 0, signal: null });
    expect(ms).toBeLessThan(HARD_MS);
  }, 90_000);

  it('with a reader process that has exited (EPIPE), SIGTERM still ends the process', async () => {
    const dir = await createTestDatabase('sqlite');
    dbs.push(dir);
    // A reader that takes the first chunk and exits, as a scripted run's parent that went away.
    const reader = spawn(process.execPath, ['-e', "process.stdin.once('data', () => process.exit(0))"], { stdio: ['pipe', 'ignore', 'ignore'] });
    const readerGone = new Promise((r) => reader.once('exit', r));
    const s = await spawnServer(dir, reader.stdin!);
    // Only the reader holds the read end now.
    reader.stdin!.destroy();
    await readerGone;
    const key = await tokenKey(s.url, 'http://127.0.0.1:1');
    await logHeavily(s.url, key, 40);
    expect(await fetch(`${s.url}/api/status`).then((r) => r.status)).toBe(200);
    const { end, ms } = await terminate(s);
    expect(end, s.stderr()).toEqual({ code: 0, signal: null });
    expect(ms).toBeLessThan(HARD_MS);
  }, 90_000);
});
