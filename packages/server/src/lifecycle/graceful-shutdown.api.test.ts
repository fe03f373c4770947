import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient } from '../test-support/api-client.js';
import { startNode, type NodeProcess } from '../test-support/multinode.js';
import { addChannel } from '../test-support/relay-fixtures.js';

/**
 * A stop is graceful (docs/deployment.md#stopping): on SIGTERM the server refuses new work, lets
 * open streams finish (up to SHUTDOWN_TIMEOUT), settles every request in the ledger and exits 0 —
 * whether only the server gets the signal (`docker stop`, `kill <pid>`) or its whole process group
 * does (systemd's default, Ctrl-C on `npm start`, which also forwards it).
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const START_QUOTA = 50_000_000;
let fake: FakeOpenAI;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-shutdown-'));
  // About two seconds per stream: long enough that the signal lands mid-stream.
  fake = await startFakeOpenAI({ chunkCount: 40, chunkDelayMs: 50 });
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Setup {
  node: NodeProcess;
  file: string;
  key: string;
  tokenId: number;
  userId: number;
}

async function start(name: string, env: Record<string, string>, viaStartScript: boolean): Promise<Setup> {
  const file = path.join(dir, `${name}.db`);
  const node = await startNode({ SQLITE_PATH: file, SQL_DSN: '', REDIS_CONN_STRING: '', NODE_ID: name, ...env }, { viaStartScript });
  const root = await rootClient(node.url);
  await addChannel(root, { base_url: fake.url, models: 'gpt-4' });
  expect((await root.post('/api/token/', { name: 'stop', remain_quota: 0, unlimited_quota: true, expired_time: -1 })).body.success).toBe(true);
  expect((await root.put('/api/user/', { id: root.userId, quota: START_QUOTA })).body.success).toBe(true);
  // Through the API: a second SQLite connection opened on a busy server's file once read no row here (CI, under load).
  const tokens = (await root.get('/api/token/?p=0&size=10')).body.data as Array<{ id: number; key: string; name: string }>;
  const token = tokens.find((t) => t.name === 'stop')!;
  return { node, file, key: token.key, tokenId: token.id, userId: root.userId! };
}

/** Opens a stream and resolves once its first chunk arrived; `done` has the whole text. */
async function openStream(s: Setup): Promise<{ done: Promise<string> }> {
  const res = await fetch(`${s.node.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${s.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Tell me a story' }] }),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value, { stream: true });
  const done = (async () => {
    try {
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      // Cut by the server: the text so far is what was delivered.
    }
    return text;
  })();
  return { done };
}

function accounts(s: Setup) {
  const db = new Database(s.file, { readonly: true });
  const open = (db.prepare('SELECT COUNT(*) AS n FROM reservations').get() as { n: number }).n;
  const user = db.prepare('SELECT quota, used_quota FROM users WHERE id = ?').get(s.userId) as { quota: number; used_quota: number };
  const logs = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(quota), 0) AS q FROM logs WHERE type = 2 AND token_id = ?').get(s.tokenId) as { n: number; q: number };
  db.close();
  return { open, user, logs };
}

function ledgerCheck(file: string): void {
  const check = spawnSync(process.execPath, [path.join(ROOT, 'packages/server/dist/ledger/cli.js')], { env: { ...process.env, SQL_DSN: '', SQLITE_PATH: file }, encoding: 'utf8' });
  expect(check.stdout).toMatch(/ledger reconciles/);
  expect(check.status).toBe(0);
}

describe.each([
  ['the server alone gets SIGTERM (docker stop)', false],
  ['the whole process group gets SIGTERM (systemd, Ctrl-C on npm start)', true],
] as const)('graceful stop: %s', (_label, group) => {
  it('open streams finish, new requests are refused, every request is settled, exit code 0', async () => {
    const s = await start(group ? 'stop-group' : 'stop-alone', { SHUTDOWN_TIMEOUT: '20' }, group);
    const streams = await Promise.all([0, 1, 2].map(() => openStream(s)));
    if (group) s.node.killGroup('SIGTERM');
    else s.node.kill('SIGTERM');
    await s.node.waitForOutput(/SIGTERM received, shutting down/);

    // A new request during the stop is not served (the listener is closed, or 503 on a kept-alive socket).
    const late = await fetch(`${s.node.url}/v1/models`, { headers: { authorization: `Bearer sk-${s.key}` } }).then(
      (r) => r.status,
      () => 0,
    );
    expect([0, 503]).toContain(late);

    const texts = await Promise.all(streams.map((x) => x.done));
    for (const t of texts) {
      expect(t).toContain('"usage"');
      expect(t.trimEnd().endsWith('data: [DONE]')).toBe(true);
    }
    expect(await s.node.exited).toEqual({ code: 0, signal: null });
    expect(s.node.output()).toMatch(/"msg":"stopped"/);
    // The group case delivers SIGTERM to the server directly and again through start.mjs (the two
    // may coalesce into one delivery); either way the streams above finished and the stop was one.
    expect(s.node.output().match(/"msg":"stopped"/g)).toHaveLength(1);

    const a = accounts(s);
    expect(a.open).toBe(0);
    expect(a.logs.n).toBe(3);
    expect(a.logs.q).toBeGreaterThan(0);
    expect(START_QUOTA - a.user.quota).toBe(a.logs.q);
    expect(a.user.used_quota).toBe(a.logs.q);
    ledgerCheck(s.file);
  }, 60_000);
});

describe('graceful stop past SHUTDOWN_TIMEOUT', () => {
  it('cuts the streams still open, bills what they delivered and exits 0 with nothing reserved', async () => {
    const s = await start('stop-timeout', { SHUTDOWN_TIMEOUT: '1' }, false);
    const started = Date.now();
    const slow = await startFakeOpenAI({ chunkCount: 400, chunkDelayMs: 50 });
    try {
      const root = await rootClient(s.node.url);
      // A priced model only this slow channel serves (an unpriced one is refused before any upstream call).
      await addChannel(root, { base_url: slow.url, models: 'gpt-4-0613' });
      const res = await fetch(`${s.node.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${s.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4-0613', stream: true, messages: [{ role: 'user', content: 'A very long story' }] }),
      });
      const reader = res.body!.getReader();
      await reader.read();
      s.node.kill('SIGTERM');
      let delivered = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          delivered += new TextDecoder().decode(value);
        }
      } catch {
        // cut
      }
      expect(delivered).not.toContain('[DONE]');
      expect(await s.node.exited).toEqual({ code: 0, signal: null });
      // 400 chunks take 20 s; the stop took about the timeout plus the settle.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(s.node.output()).toMatch(/shutdown timeout reached/);
      const a = accounts(s);
      expect(a.open).toBe(0);
      expect(a.logs.n).toBe(1);
      expect(a.logs.q).toBeGreaterThan(0);
      expect(START_QUOTA - a.user.quota).toBe(a.logs.q);
      ledgerCheck(s.file);
    } finally {
      await slow.close();
    }
  }, 60_000);
});
