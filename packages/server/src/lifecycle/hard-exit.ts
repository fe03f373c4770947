import type { Logger } from '../log/logger.js';
import { SETTLE_GRACE_MS } from './graceful-close.js';

/**
 * Two deliveries of a stop signal closer than this are one stop (a process-group signal reaches the
 * server directly and again through scripts/start.mjs); a later one means "stop now".
 */
export const REPEAT_SIGNAL_MS = 2000;

/** How long past SHUTDOWN_TIMEOUT and the ledger's settle grace a stop may take to close pools. */
export const CLOSE_MARGIN_MS = 5000;

/** Once the flush of the last log lines has waited this long, the process exits without them. */
const FINAL_FLUSH_MS = 1000;

/**
 * The graceful stop's deadline (issue 38): open requests get SHUTDOWN_TIMEOUT, their ledger entries
 * SETTLE_GRACE_MS, closing the pools CLOSE_MARGIN_MS; whatever still holds the process then (a pool
 * that never drains, a job waiting on a lease, a timer) does not keep it alive. The timer is unref'd,
 * so a stop that ends sooner is not held by it; what was still open is logged for diagnosis.
 */
export function armHardExit(log: Logger, shutdownTimeoutSec: number): NodeJS.Timeout {
  const ms = shutdownTimeoutSec * 1000 + SETTLE_GRACE_MS + CLOSE_MARGIN_MS;
  const timer = setTimeout(() => {
    log.error({ stillOpen: process.getActiveResourcesInfo() }, `shutdown did not finish within ${Math.round(ms / 1000)} s; exiting`);
    exitNow(log, 1);
  }, ms);
  timer.unref();
  return timer;
}

/** Exits with `code` once the logger's queued lines are out, or after at most a second without them. */
export function exitNow(log: Logger, code: number): void {
  let done = false;
  const exit = () => {
    if (done) return;
    done = true;
    process.exit(code);
  };
  // Should a destination ignore its own bound, this one still holds.
  setTimeout(exit, FINAL_FLUSH_MS + 500).unref();
  log.flush(exit);
}

/**
 * Node reports a failed write to process.stdout/stderr (EPIPE once the reader has gone, as when the
 * parent of a scripted run exits) as an 'error' event, which unhandled would crash the process in
 * the middle of a stop. Nothing can be written there any more, so the error is dropped.
 */
export function survivePipeErrors(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', () => {
      // The reader is gone; the logger's own destination stops writing on the same error.
    });
  }
}
