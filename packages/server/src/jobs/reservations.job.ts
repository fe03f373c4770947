import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'cluster' | 'relay'>;

/**
 * Ledger recovery and leases (docs/ledger.md). A reservation row means a request has not settled
 * yet. Each node renews the leases of the reservations it holds; at start-up it releases its own
 * reservations from before it started (it crashed), and a periodic sweep releases any node's
 * reservations whose lease ran out (that node is gone). A live node's in-flight requests are never
 * touched, and a release that races a late settle still ends in exactly one outcome.
 */
export function registerLedgerJobs(app: FastifyInstance, ctx: Deps): void {
  const ledger = ctx.relay.ledger;
  const timers: NodeJS.Timeout[] = [];
  const stops: Array<() => void> = [];
  const every = (ms: number, name: string, fn: () => Promise<unknown>) => {
    const t = setInterval(() => {
      fn().catch((err: unknown) => app.log.error({ err, job: name, node: ledger.nodeId }, `ledger job ${name} failed; retrying on the next tick`));
    }, ms);
    t.unref();
    timers.push(t);
  };
  app.addHook('onReady', async () => {
    const released = await ledger.recover();
    if (released) app.log.warn(`released ${released} reservation(s) left by an unfinished run or an expired lease`);
    // Charges this node spooled during a database outage and had not replayed when it stopped (ledger/outage).
    // In the background: a long spool must not hold up start-up (each entry is idempotent, so new requests need not wait).
    const outage = ledger.outage;
    if (outage && (await outage.spool.load()) > 0) {
      const before = outage.stats.replayed;
      void outage.replay().then((done) => {
        const n = outage.stats.replayed - before;
        if (done) app.log.warn(`replayed ${n} spooled ledger entr${n === 1 ? 'y' : 'ies'} left by an earlier run`);
        else outage.enter(new Error('the spool left by an earlier run could not be replayed'));
      });
    }
    const leaseMs = ledger.leaseSec * 1000;
    every(Math.max(500, Math.floor(leaseMs / 3)), 'lease-renewal', () => ledger.renewLeases());
    // One node at a time sweeps (a job lock); a failure is logged with the job and node, and retried.
    const stopSweep = ctx.cluster.scheduler.every('reservation-sweep', Math.max(1000, Math.floor(leaseMs / 2)), async () => {
      const n = await ledger.recover();
      if (n) app.log.warn(`released ${n} reservation(s) whose lease expired`);
    });
    stops.push(stopSweep);
  });
  app.addHook('onClose', async () => {
    for (const t of timers) clearInterval(t);
    for (const stop of stops) stop();
    await ledger.outage?.close();
    await ctx.relay.close();
  });
}
