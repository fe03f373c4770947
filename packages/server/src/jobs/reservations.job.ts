import type { AppContext } from '../context.js';

/**
 * Ledger recovery. A reservation left in the table means its request never settled (the process
 * died mid-request): start-up gives every such reservation back. A periodic sweep releases
 * reservations older than `maxAgeSec` — longer than any request can run — for nodes that crashed
 * while others keep serving (multi-node). Settling after a release charges afresh, so a sweep
 * racing a very slow request never loses money.
 */
export async function releaseReservationsAtStartup(ctx: AppContext, startedAt: number): Promise<number> {
  return ctx.relay.ledger.releaseStale(startedAt + 1);
}

export function startReservationSweep(ctx: AppContext, maxAgeSec = 6 * 3600, everyMs = 10 * 60_000): () => void {
  const timer = setInterval(() => {
    ctx.relay.ledger.releaseStale(Math.floor(Date.now() / 1000) - maxAgeSec).catch(() => undefined);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Wires recovery into the app's life cycle: release before the first request, sweep while running. */
export function registerLedgerJobs(app: import('fastify').FastifyInstance, ctx: AppContext): void {
  let stop: (() => void) | undefined;
  app.addHook('onReady', async () => {
    const released = await releaseReservationsAtStartup(ctx, Math.floor(Date.now() / 1000));
    if (released) app.log.warn(`released ${released} reservation(s) left by an unfinished run`);
    stop = startReservationSweep(ctx);
  });
  app.addHook('onClose', async () => {
    stop?.();
    await ctx.relay.close();
  });
}
