import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { workerSlot } from '../cluster/worker-slot.js';
import type { Db } from '../db/client.js';

/**
 * Moves SQLite WAL checkpoints off the event loop. With the default `wal_autocheckpoint`, the
 * commit that pushes the WAL past 1 000 pages copies them into the database file and fsyncs,
 * synchronously, inside some unlucky request (every ~75 relayed requests: each settle writes
 * ~13 pages) — the relay's p99 at one connection was set by that stall. Here the relay's
 * connection never checkpoints; a worker thread with its own connection runs PASSIVE checkpoints
 * (which never block writers) every `everyMs`. If the worker dies, auto-checkpointing is turned
 * back on so the WAL cannot grow without bound.
 *
 * With WORKERS > 1 one thread serves the machine: a checkpoint copies the whole WAL, whoever wrote
 * it, so only cluster worker 0 runs it and the others just leave checkpoints to it. While worker 0
 * restarts the WAL grows for a moment; if its thread fails it checkpoints on its own commits again.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: the next tick retries */ }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

const DEFAULT_AUTOCHECKPOINT = 1000;

export class SqliteCheckpointer {
  private worker: Worker | undefined;

  constructor(
    private readonly handle: Db,
    file: string,
    everyMs = 500,
  ) {
    const sqlite = handle.sqlite;
    if (!sqlite || sqlite.memory) return;
    const slot = workerSlot();
    if (slot !== undefined && slot > 0) {
      sqlite.pragma('wal_autocheckpoint = 0');
      return;
    }
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, everyMs } });
    worker.unref();
    worker.on('error', () => this.fallBack());
    worker.on('exit', () => this.fallBack());
    this.worker = worker;
    sqlite.pragma('wal_autocheckpoint = 0');
  }

  private fallBack(): void {
    this.worker = undefined;
    const sqlite = this.handle.sqlite;
    if (sqlite?.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Held while we wait: with the worker and the timer unreferenced, a process with nothing else
    // left to do would exit in the middle of its shutdown, skipping everything after this.
    worker.ref();
    worker.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 5000)))]);
    clearTimeout(timer);
    if (this.worker) await this.worker.terminate();
    this.fallBack();
  }
}
