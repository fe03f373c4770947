import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config/config.js';
import { SETTLE_GRACE_MS } from '../lifecycle/graceful-close.js';
import type { Logger } from '../log/logger.js';
import { defaultRootPasswordWarning } from '../modules/users/root-password.js';
import { PrimaryHub } from './primary-hub.js';
import { WORKER_SLOT_ENV } from './worker-slot.js';

/** This many worker exits within the window means they are crash-looping: the primary gives up. */
const CRASH_LIMIT = 5;
const CRASH_WINDOW_MS = 30_000;
/** A replacement starts after this, doubled for each exit still in the window (at most RESPAWN_MAX_MS). */
const RESPAWN_BASE_MS = 250;
const RESPAWN_MAX_MS = 5000;

/** What the primary learnt in its one-time start-up (main.ts), for the lines it logs once every worker listens. */
export interface PrimaryStart {
  database: string;
  redis: boolean;
  /** Super admins still on the default password (modules/users/root-password.ts). */
  weakRoots: string[];
}

/**
 * The primary of WORKERS > 1 (docs/architecture.md#several-nodes): it has already run the one-time
 * start-up (migrations, root) and closed its database; now it forks the workers, which serve the
 * port, restarts one that exits unexpectedly (giving up when they crash-loop), and on SIGTERM or
 * SIGINT passes the signal on to every worker, whose own graceful stop lets open requests finish,
 * then exits once they all have.
 *
 * Connections are handed out by the kernel (SCHED_NONE: every worker accepts on the shared socket)
 * rather than round-robin by the primary (SCHED_RR), which would accept every connection in this
 * process and pass it over IPC: CPU taken from the workers on a machine with one core per worker.
 * The price is a less even spread under light load; modelgate_worker_requests_total shows it.
 */
export function runPrimary(config: Readonly<Config>, log: Logger, start: PrimaryStart): void {
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // Structured clone rather than JSON: a rate-limit call's Infinity arrives as Infinity.
  cluster.setupPrimary({ serialization: 'advanced' });

  const crashes: number[] = [];
  const respawns = new Map<number, NodeJS.Timeout>();
  const listening = new Set<number>();
  let announced = false;
  let stopping = false;
  let fatalLogged = false;
  let exitCode = 0;
  let killTimer: NodeJS.Timeout | undefined;

  const hub = new PrimaryHub(log, {
    listening(slot, port) {
      listening.add(slot);
      if (announced) return void log.info({ worker: slot }, `worker ${slot} is serving again`);
      if (listening.size < config.workers) return;
      announced = true;
      log.info(
        { port, workers: config.workers, database: start.database, redis: start.redis },
        `listening on http://localhost:${port} (node ${config.nodeId}, ${config.workers} workers, database: ${start.database}${start.redis ? ', redis' : ''})`,
      );
      const weakRoot = defaultRootPasswordWarning(start.weakRoots, config.host, port);
      if (weakRoot) log.warn(weakRoot);
    },
    fatal(_slot, message) {
      if (!fatalLogged) log.fatal(message);
      fatalLogged = true;
      stop('SIGTERM', 1);
    },
  });
  const workers = new Map<number, Worker>();

  const finish = () => {
    clearTimeout(killTimer);
    log.info('stopped');
    // pino writes asynchronously: flush so the last lines are not lost with the process.
    log.flush(() => process.exit(exitCode));
  };

  /** Every worker gets `signal`, as if sent to it directly: its own graceful stop (main.ts) runs. */
  function stop(signal: NodeJS.Signals, code: number): void {
    exitCode = Math.max(exitCode, code);
    if (stopping) return;
    stopping = true;
    for (const timer of respawns.values()) clearTimeout(timer);
    respawns.clear();
    if (workers.size === 0) return finish();
    for (const worker of workers.values()) worker.process.kill(signal);
    // A worker's stop takes SHUTDOWN_TIMEOUT for open requests plus the settle grace for their ledger
    // entries (lifecycle/graceful-close.ts); one still running after that and a margin is stuck.
    killTimer = setTimeout(() => {
      for (const [slot, worker] of workers) {
        log.warn({ worker: slot, pid: worker.process.pid }, `worker ${slot} did not stop in time; killing it`);
        worker.process.kill('SIGKILL');
      }
    }, config.shutdownTimeoutSec * 1000 + SETTLE_GRACE_MS + 5000);
  }

  function exited(slot: number, worker: Worker, code: number | null, signal: string | null): void {
    hub.remove(slot, worker);
    listening.delete(slot);
    if (workers.get(slot) === worker) workers.delete(slot);
    if (stopping) {
      // A worker whose own stop failed exits 1 (main.ts); one killed for taking too long was logged above.
      if (code !== null && code !== 0) exitCode = 1;
      if (workers.size === 0) finish();
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes[0]! <= now - CRASH_WINDOW_MS) crashes.shift();
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (crashes.length >= CRASH_LIMIT) {
      log.fatal(
        { worker: slot, code, signal },
        `worker ${slot} ${how}: ${crashes.length} worker exits within ${CRASH_WINDOW_MS / 1000} s, the workers are crash-looping (see the errors above); stopping`,
      );
      return stop('SIGTERM', 1);
    }
    const delay = Math.min(RESPAWN_MAX_MS, RESPAWN_BASE_MS * 2 ** (crashes.length - 1));
    log.error({ worker: slot, pid: worker.process.pid, code, signal }, `worker ${slot} ${how} unexpectedly; starting a new one in ${delay} ms`);
    respawns.set(
      slot,
      setTimeout(() => {
        respawns.delete(slot);
        if (!stopping) fork(slot);
      }, delay),
    );
  }

  function fork(slot: number): void {
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(slot) });
    workers.set(slot, worker);
    hub.add(slot, worker);
    // An IPC write to a worker that just died; its exit is handled below.
    worker.on('error', (err: unknown) => log.warn({ err, worker: slot }, `worker ${slot}: IPC error`));
    worker.once('exit', (code: number | null, signal: string | null) => exited(slot, worker, code, signal));
  }

  // One stop however many signals arrive: systemd (KillMode=control-group) and Ctrl-C on `npm start`
  // signal the whole process group, workers included, and scripts/start.mjs forwards the same signal.
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return void log.info(`${signal} received again; already shutting down`);
    log.info(`${signal} received, stopping ${workers.size} workers (open requests may finish within ${config.shutdownTimeoutSec} s)`);
    stop(signal, 0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  for (let slot = 0; slot < config.workers; slot++) fork(slot);
}
