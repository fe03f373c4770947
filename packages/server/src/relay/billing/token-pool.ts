import { createRequire } from 'node:module';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { countBounded } from './token-bounded.js';

export type EncodingKind = 'cl100k' | 'o200k';

const require = createRequire(import.meta.url);

/**
 * The worker's whole program. Evaluated source rather than a file: the same code then runs from
 * the built `dist/` and from the TypeScript sources under Vitest or tsx, where no compiled worker
 * file exists. `countBounded` is inserted from its own source so inline and worker counts agree.
 * Special-token text (`<|endoftext|>`) counts as ordinary text: gpt-tokenizer would throw on it.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const OPTIONS = { disallowedSpecial: new Set() };
const countBounded = ${countBounded.toString()};
const counters = {};
function counter(kind) {
  if (!counters[kind]) {
    const enc = require(workerData.paths[kind]);
    counters[kind] = (text) => enc.countTokens(text, OPTIONS);
  }
  return counters[kind];
}
parentPort.on('message', (job) => {
  try {
    const count = counter(job.kind);
    let total = 0;
    for (const text of job.texts) total += countBounded(count, text);
    parentPort.postMessage({ id: job.id, total });
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: String(err && err.message ? err.message : err) });
  }
});
`;

interface Job {
  chars: number;
  resolve: (total: number | undefined) => void;
}

interface Slot {
  worker: Worker;
  pending: Set<number>;
}

/**
 * A small pool of tokeniser threads, started on the first large count and stopped when the last
 * app using it closes. A job that cannot be done (pool saturated, worker crashed, pool closed)
 * resolves to `undefined` and the caller estimates instead: counting never fails a request.
 */
export class TokenPool {
  private readonly slots: Slot[] = [];
  private readonly jobs = new Map<number, Job>();
  private seq = 0;
  private queuedChars = 0;
  private users = 0;
  private paths: Record<EncodingKind, string> | undefined;

  constructor(
    private readonly size: number,
    private readonly maxQueuedChars: number,
  ) {}

  /** Sum of `countBounded` over `texts` in a worker; `undefined` when it could not be counted. */
  count(kind: EncodingKind, texts: readonly string[], chars: number): Promise<number | undefined> {
    if (this.queuedChars + chars > this.maxQueuedChars) return Promise.resolve(undefined);
    let slot: Slot;
    try {
      slot = this.pick();
    } catch {
      return Promise.resolve(undefined);
    }
    const id = ++this.seq;
    this.queuedChars += chars;
    slot.pending.add(id);
    return new Promise((resolve) => {
      this.jobs.set(id, { chars, resolve });
      slot.worker.postMessage({ id, kind, texts });
    });
  }

  /** An app that may count registers itself so the pool outlives none of its users' close. */
  retain(): void {
    this.users += 1;
  }

  async release(): Promise<void> {
    this.users = Math.max(0, this.users - 1);
    if (this.users === 0) await this.close();
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    for (const s of slots) for (const id of s.pending) this.finish(id, undefined);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private pick(): Slot {
    let best: Slot | undefined;
    for (const s of this.slots) if (!best || s.pending.size < best.pending.size) best = s;
    if (best && (best.pending.size === 0 || this.slots.length >= this.size)) return best;
    return this.spawn();
  }

  private spawn(): Slot {
    this.paths ??= {
      cl100k: require.resolve('gpt-tokenizer/encoding/cl100k_base'),
      o200k: require.resolve('gpt-tokenizer/encoding/o200k_base'),
    };
    // A worker that blows its heap dies alone (its jobs are estimated); the app keeps running.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { paths: this.paths }, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    // An idle pool never keeps the process alive; in-flight requests hold their own sockets.
    worker.unref();
    const slot: Slot = { worker, pending: new Set() };
    worker.on('message', (msg: { id: number; total?: number; error?: string }) => {
      slot.pending.delete(msg.id);
      this.finish(msg.id, typeof msg.total === 'number' ? msg.total : undefined);
    });
    const drop = () => {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
      for (const id of slot.pending) this.finish(id, undefined);
      slot.pending.clear();
    };
    worker.on('error', drop);
    worker.on('exit', drop);
    this.slots.push(slot);
    return slot;
  }

  private finish(id: number, total: number | undefined): void {
    const job = this.jobs.get(id);
    if (!job) return;
    this.jobs.delete(id);
    this.queuedChars -= job.chars;
    job.resolve(total);
  }
}

/** One or two threads: the machine's other cores serve requests. */
export function defaultPoolSize(): number {
  return Math.min(2, Math.max(1, os.availableParallelism() - 1));
}
