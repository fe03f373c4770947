import type { FastifyInstance, RouteHandlerMethod } from 'fastify';

/**
 * The request handlers still running. A relay stream's handler returns only after it has settled
 * (or released) the request in the ledger, which is after its socket closed; shutdown waits for
 * these, not for sockets, so no charge is cut off half-way.
 */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  get size(): number {
    return this.running.size;
  }

  track<T>(p: Promise<T>): Promise<T> {
    this.running.add(p);
    const done = () => this.running.delete(p);
    p.then(done, done);
    return p;
  }

  /** Resolves when no handler runs, or after `ms` (then with false). */
  async idle(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.running.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.running]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, left);
        }),
      ]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Wraps every route registered after this call; must be installed before the routes. */
  install(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const handler = route.handler as RouteHandlerMethod;
      const track = this.track.bind(this);
      route.handler = function trackedHandler(this: FastifyInstance, req, reply) {
        const result: unknown = handler.call(this, req, reply);
        // Only promises are tracked; a synchronous handler's return value is passed on untouched.
        if (result && typeof (result as Promise<unknown>).then === 'function') return track(result as Promise<unknown>);
        return result;
      } as RouteHandlerMethod;
    });
  }
}
