import { hasNul } from '@modelgate/shared';
import { checkInt } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

/**
 * Input checks outside the route schemas. The zod field validators every route schema uses live
 * in `@modelgate/shared/api` (fields.ts), shared with the console.
 */

/** An optional integer query parameter: absent or empty means "not given". */
export function queryInt(q: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = q[name];
  if (v === undefined || v === null || v === '') return undefined;
  const r = checkInt(v, min, max);
  if (!r.ok) throw new AppError(r.code, 200, r.detail ? `${name} (${r.detail})` : name);
  return r.value;
}

/** First string in `v` (query, params or JSON body) that holds a NUL, as a dotted path. */
export function findNul(v: unknown, path: string, depth = 0): string | null {
  if (typeof v === 'string') return hasNul(v) ? path : null;
  if (depth > 64 || v === null || typeof v !== 'object') return null;
  for (const [k, item] of Object.entries(v)) {
    if (hasNul(k)) return path;
    const found = findNul(item, path ? `${path}.${k}` : k, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

async function rejectNulInput(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
  for (const [where, value] of [['query', req.query], ['params', req.params], ['body', req.body]] as const) {
    const path = findNul(value, '');
    if (path !== null) throw new AppError('TEXT_NUL_FORBIDDEN', 200, path || where);
  }
}

/**
 * Every `/api` route refuses a NUL anywhere in its input before it runs (PostgreSQL cannot store
 * one). The schemas refuse it field by field too; this also covers the loosely typed inputs
 * (option values, search words) and routes added later. Attached per route so `/v1` pays nothing.
 * Call before the routes are declared.
 */
export function installNulGuard(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [rejectNulInput] : [rejectNulInput, ...(Array.isArray(existing) ? existing : [existing])];
  });
}
