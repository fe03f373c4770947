import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient } from '../test-support/api-client.js';
import { freePort } from '../test-support/multinode.js';
import { addChannel } from '../test-support/relay-fixtures.js';

/**
 * Money is exact (docs/architecture.md#the-ledger) under a real crash: the server runs as its own process on a SQLite file, is
 * SIGKILLed in the middle of streaming and non-stream load, and restarted on the same file.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const MAIN = path.join(ROOT, 'packages/server/src/main.ts');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

let fake: FakeOpenAI;
let dir: string;
let child: ChildProcess | undefined;
const START_QUOTA = 50_000_000;
const START_REMAIN = 40_000_000;

async function startServer(): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--conditions=source', '--import', TSX, MAIN], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: String(port),
      // One node restarted: the same NODE_ID, so it releases what its killed run left behind.
      NODE_ID: 'crash-node',
      // One process: a SIGKILL is the crash under test (a cluster's workers would notice their primary die and stop gracefully).
      WORKERS: '1',
      SQLITE_PATH: path.join(dir, 'crash.db'),
      SQL_DSN: '',
      REDIS_CONN_STRING: '',
      SESSION_SECRET: 'crash-test',
      GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
      GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
      CRITICAL_RATE_LIMIT_ENABLE: 'false',
      LOG_LEVEL: 'error',
      WEB_DIST_DIR: '/nonexistent-modelgate-web',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Start-up failures are logged (pino, stdout) or thrown (stderr): keep both for the error message.
  let stderr = '';
  proc.stdout!.on('data', (d: Buffer) => (stderr += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child = proc;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited early: ${stderr}`);
    try {
      if ((await fetch(`${url}/api/status`, { signal: AbortSignal.timeout(1000) })).ok) return { url, proc };
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not come up within 30 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function killHard(proc: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not die within 10 s')), 10_000);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGKILL');
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-crash-'));
  // Slow enough that streams are mid-flight whenever the kill lands.
  fake = await startFakeOpenAI({ chunkCount: 20, chunkDelayMs: 5 });
});
afterAll(async () => {
  if (child && child.exitCode === null) await killHard(child).catch(() => undefined);
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('SIGKILL under load', () => {
  it('after a restart no reservation is left and the balance change equals the logged quota', async () => {
    let { url, proc } = await startServer();
    const root = await rootClient(url);
    await addChannel(root, { base_url: fake.url, models: 'gpt-4' });
    // Balances set through the API, so they are ledger movements and the ledger can be checked after the crash.
    const created = await root.post('/api/token/', { name: 'crash', remain_quota: START_REMAIN, unlimited_quota: false, expired_time: -1 });
    expect(created.body.success).toBe(true);
    expect((await root.put('/api/user/', { id: root.userId, quota: START_QUOTA })).body.success).toBe(true);

    const file = path.join(dir, 'crash.db');
    let db = new Database(file);
    const token = db.prepare("SELECT id, key FROM tokens WHERE name = 'crash'").get() as { id: number; key: string };
    db.close();

    const headers = { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' };
    const body = (stream: boolean) => JSON.stringify({ model: 'gpt-4', messages: [{ role: 'user', content: 'Hello there friend' }], stream });
    let stop = false;
    let completed = 0;
    const worker = async (i: number) => {
      while (!stop) {
        try {
          const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body: body(i % 2 === 0), signal: AbortSignal.timeout(10_000) });
          await res.text();
          if (res.ok) completed += 1;
        } catch {
          return; // the server died under us
        }
      }
    };
    const workers = Array.from({ length: 24 }, (_, i) => worker(i));
    const loadDeadline = Date.now() + 15_000;
    while (completed < 60 && Date.now() < loadDeadline) await new Promise((r) => setTimeout(r, 20));
    expect(completed).toBeGreaterThanOrEqual(60);
    await killHard(proc);
    stop = true;
    await Promise.all(workers);

    db = new Database(file);
    const leftBehind = (db.prepare('SELECT COUNT(*) AS n FROM reservations').get() as { n: number }).n;
    db.close();
    // The kill landed mid-request: otherwise this test would prove nothing.
    expect(leftBehind).toBeGreaterThan(0);

    ({ url, proc } = await startServer());
    db = new Database(file, { readonly: true });
    const open = (db.prepare('SELECT COUNT(*) AS n FROM reservations').get() as { n: number }).n;
    const user = db.prepare('SELECT quota, used_quota FROM users WHERE id = ?').get(root.userId) as { quota: number; used_quota: number };
    const tok = db.prepare('SELECT remain_quota, used_quota FROM tokens WHERE id = ?').get(token.id) as { remain_quota: number; used_quota: number };
    const logs = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(quota), 0) AS q FROM logs WHERE type = 2 AND token_id = ?').get(token.id) as { n: number; q: number };
    db.close();

    expect(open).toBe(0);
    expect(logs.n).toBeGreaterThanOrEqual(completed);
    expect(START_QUOTA - user.quota).toBe(logs.q);
    expect(START_REMAIN - tok.remain_quota).toBe(logs.q);
    expect(user.used_quota).toBe(logs.q);
    expect(tok.used_quota).toBe(logs.q);

    // `npm run ledger:check` on the file after the crash and the recovery: every balance reconciles.
    const check = spawnSync(process.execPath, [path.join(ROOT, 'packages/server/dist/ledger/cli.js')], { env: { ...process.env, SQL_DSN: '', SQLITE_PATH: file }, encoding: 'utf8' });
    expect(check.stdout).toMatch(/ledger reconciles/);
    expect(check.status).toBe(0);

    // The restarted server serves on the same file.
    const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body: body(false), signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    await killHard(proc);
  }, 90_000);
});
