import { apiRoutes, type RouteAuth } from '@modelgate/shared/api';

/**
 * Who may call each route the server registers. Routes of the documented API state it in their
 * contract (`auth` in `@modelgate/shared/api`); the few routes outside the API (probes, the metrics
 * scrape, the console's static files) state it here, with the reason. `secret`: none of the
 * console's callers — the route takes its own shared secret (the MetricsToken option).
 * `http/route-access.api.test.ts` fails on any registered route that states nothing, and
 * `http/access-matrix.api.test.ts` calls every route as every kind of caller against this.
 */
export type RouteAccessLevel = RouteAuth | 'secret';

export interface RouteAccess {
  auth: RouteAccessLevel;
  /** Where it is stated: the route's contract, or this file's table. */
  source: 'contract' | 'server';
  reason?: string;
}

interface ServerRoute {
  auth: RouteAccessLevel;
  reason: string;
}

/** Routes without a contract: not part of the API document, so their access is stated here. */
export const SERVER_ROUTES: Readonly<Record<string, ServerRoute>> = {
  'GET /healthz': { auth: 'public', reason: 'liveness probe for orchestrators: answers the version and node id only' },
  'GET /readyz': { auth: 'public', reason: 'readiness probe: answers whether the database and Redis answer, no data and no secrets' },
  'GET /metrics': { auth: 'secret', reason: 'Prometheus scrape: Bearer MetricsToken (option), 404 while that option is empty' },
};

/** The console's bundle files (@fastify/static marks each of its routes with the file it serves). */
const STATIC_FILE: ServerRoute = { auth: 'public', reason: 'a file of the built web console (HTML, scripts, styles, images)' };

export interface RegisteredRoute {
  method: string | string[];
  url: string;
  config?: unknown;
}

/** `"METHOD /path"` of one method of a registered route; HEAD is answered by its GET route. */
export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/** The declared access of one method of a registered route, or null when nothing states it. */
export function declaredAccess(method: string, route: RegisteredRoute, webDistDir: string): RouteAccess | null {
  const key = routeKey(method, route.url);
  const contract = (apiRoutes as Record<string, { auth: RouteAuth } | undefined>)[key];
  if (contract) return { auth: contract.auth, source: 'contract' };
  const server = SERVER_ROUTES[key];
  if (server) return { ...server, source: 'server' };
  const config = route.config as { file?: unknown; rootPath?: unknown } | undefined;
  const root = typeof config?.rootPath === 'string' ? config.rootPath.replace(/\/+$/, '') : null;
  if ((method === 'GET' || method === 'HEAD') && typeof config?.file === 'string' && root === webDistDir.replace(/\/+$/, '')) {
    return { ...STATIC_FILE, source: 'server' };
  }
  return null;
}
