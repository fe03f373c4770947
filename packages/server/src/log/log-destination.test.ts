import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogDestination } from './log-destination.js';

/**
 * The logger's destination never blocks on its reader (issue 38): lines reach a reader that reads,
 * wait (bounded) for one that has stopped, and are dropped once it has gone.
 */
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A child process (`cat`) reading from a pipe; the pipe's write-end descriptor. */
function reader() {
  const child = spawn('cat', [], { stdio: ['pipe', 'pipe', 'ignore'] });
  children.push(child);
  const fd = (child.stdin as unknown as { _handle: { fd: number } })._handle.fd;
  return { child, fd };
}

/**
 * A FIFO whose only reader is a child that never reads; the write end opened non-blocking, as
 * Node leaves a stdout pipe. Killing the child leaves the FIFO without a reader (EPIPE).
 */
async function quietReader() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-dest-'));
  const fifo = path.join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const child = spawn('sh', ['-c', 'exec sleep 30 < "$0"', fifo], { stdio: 'ignore' });
  children.push(child);
  for (let i = 0; ; i++) {
    try {
      const fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      return { child, fd, cleanup: () => (fs.closeSync(fd), fs.rmSync(dir, { recursive: true, force: true })) };
    } catch (e) {
      // ENXIO until the child has opened its end.
      if ((e as NodeJS.ErrnoException).code !== 'ENXIO' || i > 200) throw e;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

const line = (i: number) => `${JSON.stringify({ i, msg: 'x'.repeat(1000) })}\n`;

describe('LogDestination', () => {
  it('writes every line, in order, to a reader that reads', async () => {
    const { child, fd } = reader();
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const dest = new LogDestination(fd);
    for (let i = 0; i < 500; i++) dest.write(line(i));
    dest.write('last — ünïcode ✓\n');
    await new Promise<void>((resolve) => dest.flush(() => resolve(), 5000));
    child.stdin!.end();
    await new Promise((resolve) => child.once('close', resolve));
    const lines = out.split('\n').filter(Boolean);
    expect(lines).toHaveLength(501);
    expect(lines.slice(0, 500).map((l) => (JSON.parse(l) as { i: number }).i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(lines[500]).toBe('last — ünïcode ✓');
    expect(dest.dropped).toBe(0);
  });

  it('does not block on a full pipe, flushes within its bound, and stops at EPIPE once the reader is gone', async () => {
    const { child, fd, cleanup } = await quietReader();
    const dest = new LogDestination(fd);
    const t = Date.now();
    // ≈ 3 MB: far more than a pipe holds.
    for (let i = 0; i < 3000; i++) dest.write(line(i));
    expect(Date.now() - t).toBeLessThan(2000);
    const flushed = Date.now();
    await new Promise<void>((resolve) => dest.flush(() => resolve(), 200));
    expect(Date.now() - flushed).toBeLessThan(2000);
    expect(dest.closed).toBeUndefined();

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    await new Promise<void>((resolve) => dest.flush(() => resolve(), 1000));
    expect(dest.closed).toBe('EPIPE');
    const dropped = dest.dropped;
    expect(dropped).toBeGreaterThan(0);
    dest.write(line(0));
    expect(dest.dropped).toBe(dropped + 1);
    cleanup();
  });
});
