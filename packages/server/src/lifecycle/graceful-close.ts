import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { InFlight } from './in-flight.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'relay'>;

/** After the sockets are gone, how long handlers may take to record their outcome in the ledger. */
export const SETTLE_GRACE_MS = 10_000;

/**
 * `app.close()` as a graceful stop (docs/deployment.md#stopping): new connections are refused and
 * new requests on open ones get 503 at once; requests in flight — open streams included — run on
 * for up to SHUTDOWN_TIMEOUT seconds; then the remaining connections are cut, which a relay stream
 * treats as a client that went away (it is billed for what was delivered). Once every handler has
 * returned, any reservation this process still holds is released, before the ledger's jobs and the
 * relay's connection pool stop.
 */
export function installGracefulClose(app: FastifyInstance, ctx: Deps, inFlight: InFlight): void {
  let deadline: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    const ms = ctx.config.shutdownTimeoutSec * 1000;
    if (inFlight.size > 0) app.log.info({ inFlight: inFlight.size, timeoutSec: ctx.config.shutdownTimeoutSec }, 'waiting for requests in flight');
    deadline = setTimeout(() => {
      if (inFlight.size > 0) app.log.warn({ inFlight: inFlight.size }, 'shutdown timeout reached: closing the remaining connections');
      app.server.closeAllConnections();
    }, ms);
  });
  app.addHook('onClose', async () => {
    clearTimeout(deadline);
    if (!(await inFlight.idle(SETTLE_GRACE_MS))) app.log.error({ inFlight: inFlight.size }, 'request handlers still running after the shutdown grace period');
    const released = await ctx.relay.ledger.releaseOpen();
    if (released) app.log.warn({ released }, `released ${released} reservation(s) of requests that did not settle`);
  });
}
