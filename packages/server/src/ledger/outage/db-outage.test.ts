import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DbOutage } from './db-outage.js';
import type { SpoolEntry } from './spool.js';

const quiet = { warn: () => undefined, info: () => undefined, error: () => undefined };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function outage(apply: (e: SpoolEntry) => Promise<void>): DbOutage {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-outage-unit-'));
  dirs.push(dir);
  return new DbOutage({ mode: 'serve', spoolDir: dir, timeoutMs: 1000, probeMs: 10 }, async () => undefined, apply, quiet);
}

const release = (rid: string): SpoolEntry => ({ op: 'release', rid });

describe('the outage spool replay', () => {
  it('replays what is appended while a replay runs, and a call that joins a running replay gets another pass', async () => {
    const applied: string[] = [];
    let joined: Promise<boolean> | undefined;
    const o: DbOutage = outage(async (e) => {
      applied.push(e.rid);
      // A write that timed out after the database came back lands in the file the pass has moved
      // past, and the probe it schedules joins the replay under way.
      if (e.rid === 'a') {
        await o.write(release('late'));
        joined = o.replay();
      }
    });
    await o.write(release('a'));
    await o.write(release('b'));
    expect(await o.replay()).toBe(true);
    expect(await joined).toBe(true);
    expect(applied.sort()).toEqual(['a', 'b', 'late']);
    expect(o.spool.size).toBe(0);
    expect(fs.readdirSync(o.spool.dir).filter((n) => n.endsWith('.replay.jsonl'))).toEqual([]);
    await o.close();
  });

  it('keeps the file when an entry fails, and applies it (once more) on the next replay', async () => {
    let fail = true;
    const applied: string[] = [];
    const o = outage(async (e) => {
      if (fail) throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
      applied.push(e.rid);
    });
    await o.write(release('x'));
    expect(await o.replay()).toBe(false);
    expect(o.spool.size).toBe(1);
    fail = false;
    expect(await o.replay()).toBe(true);
    expect(applied).toEqual(['x']);
    expect(o.spool.size).toBe(0);
    await o.close();
  });

  it('replays what is left when the node stops with the database answering', async () => {
    const applied: string[] = [];
    const o = outage(async (e) => void applied.push(e.rid));
    await o.write(release('left'));
    await o.close();
    expect(applied).toEqual(['left']);
  });
});
