import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startNode as spawnNode, waitForWorkers, type NodeProcess } from '../test-support/multinode.js';

/**
 * How a cluster of workers (WORKERS > 1) starts and stops as a whole: Ctrl-C on `npm start` is one
 * clean stop, a taken port is one fatal line and exit 1 (no restart loop), and workers do not
 * outlive a primary that was killed outright.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let dir: string;
const started: NodeProcess[] = [];

/** Every node is stopped after the file, also when an assertion failed before the test stopped it. */
async function startNode(...args: Parameters<typeof spawnNode>): Promise<NodeProcess> {
  const node = await spawnNode(...args);
  started.push(node);
  return node;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-workers-life-'));
});
afterAll(async () => {
  await Promise.all(started.map((n) => n.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = (name: string) => ({ SQLITE_PATH: path.join(dir, `${name}.db`), SQL_DSN: '', REDIS_CONN_STRING: '', NODE_ID: name, WORKERS: '2', LOG_LEVEL: 'debug' });
const lines = (output: string, re: RegExp) => output.split('\n').filter((l) => re.test(l));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a cluster of workers as one server', () => {
  it('stops once, cleanly, when Ctrl-C signals npm start\'s whole process group', async () => {
    const node = await startNode(env('ctrl-c'), { viaStartScript: true });
    await waitForWorkers(node, 2);
    node.killGroup('SIGINT');
    expect(await node.exited).toEqual({ code: 0, signal: null });
    const out = node.output();
    // Two workers and the primary, each stopped once; no worker was taken for crashed and restarted.
    expect(lines(out, /"msg":"stopped"/)).toHaveLength(3);
    expect(lines(out, /"msg":"SIGINT received, stopping 2 workers/)).toHaveLength(1);
    expect(out).not.toMatch(/starting a new one/);
  });

  it('reports a port in use once and exits 1, without restarting workers', async () => {
    const port = await freePort();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(port, '0.0.0.0', resolve));
    try {
      const node = await startNode({ ...env('port-taken'), PORT: String(port) }, { waitReady: false });
      expect((await node.exited).code).toBe(1);
      const fatal = lines(node.output(), /"level":60/);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]).toContain(`cannot listen on 0.0.0.0:${port}: the port is already in use by another process (EADDRINUSE)`);
      expect(node.output()).not.toMatch(/starting a new one/);
    } finally {
      holder.close();
    }
  });

  it('stops its workers, gracefully, when the primary is killed outright', async () => {
    const node = await startNode(env('orphans'));
    const pids = [...(await waitForWorkers(node, 2)).values()].map((w) => w.pid);
    expect(pids).toHaveLength(2);
    node.kill('SIGKILL');
    // 'exited' waits for the output pipes, which the workers hold until they exit too.
    await node.exited;
    for (let i = 0; i < 100 && pids.some(alive); i++) await sleep(100);
    expect(pids.filter(alive)).toEqual([]);
    expect(lines(node.output(), /"msg":"the cluster primary is gone, shutting down/)).toHaveLength(2);
    expect(lines(node.output(), /"msg":"stopped"/)).toHaveLength(2);
  });
});
