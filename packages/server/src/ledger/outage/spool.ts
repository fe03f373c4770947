import fs from 'node:fs';
import path from 'node:path';
import type { LogValues } from '../statements.js';
import type { HeldWindow } from '../window-ops.js';

/** A settlement made while the database was away: replayed as a settle that finds its own reservation. */
export interface SpooledSettle {
  op: 'settle';
  rid: string;
  uid: number;
  tid: number;
  limited: boolean;
  charge: number;
  ch: number;
  rt: number;
  /** The consume-log row as it would have been written for the full charge (null: consume logs off). */
  log: LogValues | null;
  /** The subscription that paid (absent: the wallet, or whatever the database's reservation says). */
  paid?: number;
  /** A reservation made during the outage by a caller with periodic limits or plans: the windows it held, charged at replay. */
  wins?: HeldWindow[];
}

/** A request that ended without a charge while the database was away: its reservation, if any reached the database, is given back. */
export interface SpooledRelease {
  op: 'release';
  rid: string;
}

export type SpoolEntry = SpooledSettle | SpooledRelease;

const ACTIVE = 'active.jsonl';
/** Entries applied at once during a replay. */
const REPLAY_GROUP = 64;

/**
 * The node's durable spool (docs/reliability.md "Database outage"): one JSON line per settlement
 * or release the database could not take, appended and fsync'd before the request's reply ends,
 * so an answer is delivered only once its charge is on disk. Appends that arrive while a write is
 * under way share the next write and fsync (a group commit of the file).
 *
 * Replay moves the active file aside (`<time>.replay.jsonl`) so new entries start a new file, then
 * applies each entry in order and deletes the file once all of them are in the database. A replay
 * cut short (the database went away again, the process was killed) leaves the file to the next
 * replay: every entry is idempotent by request id, so applying one twice moves nothing twice. A
 * last line cut by a crash was never acknowledged (its fsync had not returned) and is skipped.
 */
export class Spool {
  private handle: fs.promises.FileHandle | undefined;
  private pending: Array<{ line: string; done: (err?: unknown) => void }> = [];
  private writing = false;
  /** Entries on disk that no replay has finished yet (this process's count; a restart re-counts the files). */
  private count = 0;

  constructor(readonly dir: string) {}

  /** Resolves once `entry` is on disk (fsync'd). */
  append(entry: SpoolEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(entry)}\n`, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.writing) void this.flush();
    });
  }

  /** Entries waiting for the database (for /readyz and metrics). */
  get size(): number {
    return this.count + this.pending.length;
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      try {
        this.handle ??= await this.open();
        await this.handle.write(batch.map((b) => b.line).join(''));
        await this.handle.sync();
        this.count += batch.length;
        for (const b of batch) b.done();
      } catch (err) {
        // A full or failing disk: the callers learn their charge is not durable and refuse the request.
        await this.handle?.close().catch(() => undefined);
        this.handle = undefined;
        for (const b of batch) b.done(err);
      }
    }
    this.writing = false;
  }

  private async open(): Promise<fs.promises.FileHandle> {
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    return fs.promises.open(path.join(this.dir, ACTIVE), 'a', 0o600);
  }

  /** Counts the entries earlier processes left (at start-up, before any append). */
  async load(): Promise<number> {
    let n = 0;
    for (const file of await this.files()) n += (await readEntries(file)).length;
    this.count = n;
    return n;
  }

  /**
   * Applies every spooled entry, oldest first (a group at a time); stops at the first group `apply`
   * throws on (its file stays for the next replay). Returns how many entries were applied.
   */
  async replay(apply: (e: SpoolEntry) => Promise<void>): Promise<number> {
    await this.rotate();
    let applied = 0;
    for (const file of await this.files()) {
      if (file.endsWith(ACTIVE)) continue;
      const entries = await readEntries(file);
      // A group at a time: the ledger's writer commits each group's settles together (independent request ids).
      for (let i = 0; i < entries.length; i += REPLAY_GROUP) {
        const group = entries.slice(i, i + REPLAY_GROUP);
        await Promise.all(group.map(apply));
        applied += group.length;
      }
      await fs.promises.unlink(file);
      this.count = Math.max(0, this.count - entries.length);
    }
    return applied;
  }

  /** Moves the active file aside once the writes under way are on disk. */
  private async rotate(): Promise<void> {
    while (this.writing) await new Promise((r) => setImmediate(r));
    const active = path.join(this.dir, ACTIVE);
    await this.handle?.close();
    this.handle = undefined;
    try {
      await fs.promises.rename(active, path.join(this.dir, `${Date.now().toString().padStart(15, '0')}.replay.jsonl`));
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'ENOENT') throw err;
    }
  }

  /** Spool files, oldest first (replay files are named by time; the active file is the newest). */
  private async files(): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return [];
      throw err;
    }
    const replays = names.filter((n) => n.endsWith('.replay.jsonl')).sort();
    return [...replays, ...(names.includes(ACTIVE) ? [ACTIVE] : [])].map((n) => path.join(this.dir, n));
  }

  async close(): Promise<void> {
    while (this.writing) await new Promise((r) => setImmediate(r));
    await this.handle?.close();
    this.handle = undefined;
  }
}

async function readEntries(file: string): Promise<SpoolEntry[]> {
  const text = await fs.promises.readFile(file, 'utf8');
  const out: SpoolEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as SpoolEntry);
    } catch {
      // A line cut by a crash mid-write: its append never returned, so no reply depended on it.
    }
  }
  return out;
}
