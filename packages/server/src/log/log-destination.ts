import fs from 'node:fs';

/** Lines kept while the reader is slow; past this the newest are dropped (and counted). */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;
const RETRY_MS = 25;
const EMPTY = Buffer.alloc(0);

/**
 * Where the logger writes: a file descriptor (stdout), written with `fs.writeSync` while it takes
 * the bytes, so a line is out before the next statement in the common case, and never waiting for a
 * reader that cannot take them. pino's default (sonic-boom, sync) sleeps and retries for ever when
 * the descriptor answers EAGAIN (a pipe whose reader has stopped reading) or, in its sync flush,
 * any error (EPIPE once the reader is gone): a process stopped like that sits in a futex wait and
 * never exits (issue 38). Here a full pipe queues lines in memory (capped), retried on an unref'd
 * timer; a closed one (EPIPE, EBADF, …) ends logging for the process; `flush` waits a bounded time.
 */
export class LogDestination {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Set once the descriptor failed for good: nothing is written any more. */
  private closedBy: string | undefined;
  /** Lines dropped because the queue was full or the reader had gone. */
  dropped = 0;

  constructor(private readonly fd: number = 1) {}

  /** Why logging stopped (an error code such as EPIPE), if it did. */
  get closed(): string | undefined {
    return this.closedBy;
  }

  write(line: string): boolean {
    if (this.closedBy) {
      this.dropped++;
      return true;
    }
    const buf = Buffer.from(line, 'utf8');
    if (this.pending.length > 0) {
      this.enqueue(buf);
      return true;
    }
    const rest = this.writeNow(buf);
    if (rest.length > 0) this.enqueue(rest);
    return true;
  }

  /** Calls `cb` once every queued line is written, the descriptor failed, or `timeoutMs` passed. */
  flush(cb?: (err?: Error) => void, timeoutMs = 1000): void {
    const deadline = Date.now() + timeoutMs;
    const attempt = () => {
      this.drain();
      if (this.pending.length === 0 || this.closedBy || Date.now() >= deadline) return cb?.();
      // Unref'd: a flush never keeps the process alive on its own.
      setTimeout(attempt, RETRY_MS).unref();
    };
    attempt();
  }

  /** What is still queued, dropped: a process about to exit cannot wait for a reader. */
  discard(): void {
    this.dropped += this.pending.length;
    this.pending = [];
    this.pendingBytes = 0;
    clearTimeout(this.timer);
  }

  private enqueue(buf: Buffer): void {
    if (this.pendingBytes + buf.length > MAX_PENDING_BYTES) {
      this.dropped++;
      return;
    }
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
      if (this.pending.length > 0) this.schedule();
    }, RETRY_MS);
    this.timer.unref();
  }

  private drain(): void {
    while (this.pending.length > 0 && !this.closedBy) {
      const head = this.pending[0]!;
      const rest = this.writeNow(head);
      if (this.closedBy) break;
      if (rest.length > 0) {
        this.pending[0] = rest;
        this.pendingBytes -= head.length - rest.length;
        return;
      }
      this.pending.shift();
      this.pendingBytes -= head.length;
    }
    if (this.closedBy) this.discard();
  }

  /** Writes what the descriptor takes now; the part it did not take (empty when all went out). */
  private writeNow(buf: Buffer): Buffer {
    try {
      while (buf.length > 0) {
        const n = fs.writeSync(this.fd, buf);
        buf = buf.subarray(n);
      }
      return buf;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EBUSY') return buf;
      this.closedBy = code;
      this.dropped++;
      return EMPTY;
    }
  }
}
