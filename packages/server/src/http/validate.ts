import {
  hasControlOrBidi,
  hasNul,
  ID_MAX,
  INT32_MAX,
  normaliseUsername,
  QUOTA_MAX,
  ROLE_VALUES,
  TIMESTAMP_MAX,
  usernameProblem,
  type ServerMessageCode,
} from '@modelgate/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from './errors.js';

/**
 * The zod building blocks every `/api` route schema uses (issue 10): integers a database column
 * holds, text a database stores (no NUL) and an admin screen shows honestly (no controls, no bidi),
 * normalised usernames, the three roles. A failed check becomes a zod issue carrying a message
 * code, which errors.ts localises — so a bad input is a clear message, never a database 500.
 */

type Ctx = z.RefinementCtx;

function fail(ctx: Ctx, code: ServerMessageCode, detail?: string): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', message: code, params: { code, detail } });
  return z.NEVER;
}

type IntCheck = { ok: true; value: number } | { ok: false; code: 'INT_REQUIRED' | 'INT_OUT_OF_RANGE'; detail?: string };

/** A JSON integer or a decimal integer string; `1.5`, `"1.5"`, `1e3` strings, booleans are not. */
export function checkInt(v: unknown, min: number, max: number): IntCheck {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n)) return { ok: false, code: 'INT_REQUIRED' };
  if (n < min || n > max) return { ok: false, code: 'INT_OUT_OF_RANGE', detail: `${min} ~ ${max}` };
  return { ok: true, value: n };
}

export function int(min: number, max: number) {
  return z.unknown().transform((v, ctx): number => {
    const r = checkInt(v, min, max);
    return r.ok ? r.value : fail(ctx, r.code, r.detail);
  });
}

/** Any quota amount or delta: the client sends JSON numbers, exact only up to 2^53 − 1. */
export const quota = int(-QUOTA_MAX, QUOTA_MAX);
export const id = int(1, ID_MAX);
export const int32 = int(-INT32_MAX - 1, INT32_MAX);
/** An integer the service judges itself (a count, a minimum) but that must be exact. */
export const safeInt = int(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
/** Unix seconds; -1 is "never" where an expiry is meant. */
export const expiry = int(-1, TIMESTAMP_MAX);

export const role = z.unknown().transform((v, ctx): number => {
  const r = checkInt(v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  return r.ok && (ROLE_VALUES as readonly number[]).includes(r.value) ? r.value : fail(ctx, 'ROLE_INVALID');
});

/** A switch sent as a JSON boolean, "true"/"false" or 0/1. */
export const boolLike = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true'), z.number().transform((n) => n !== 0)]);

/** `{id}` path parameter. */
export const idParam = z.object({ id });

/** Text a database stores as is: no NUL (PostgreSQL refuses it), at most `max` characters. */
export function text(max?: number) {
  return z.string().transform((s, ctx): string => {
    if (hasNul(s)) return fail(ctx, 'TEXT_NUL_FORBIDDEN');
    if (max !== undefined && [...s].length > max) return fail(ctx, 'TEXT_TOO_LONG', `≤ ${max}`);
    return s;
  });
}

/** A one-line name shown in lists: no control or bidi characters either. */
export function line(max?: number) {
  return z.string().transform((s, ctx): string => {
    if (hasNul(s)) return fail(ctx, 'TEXT_NUL_FORBIDDEN');
    if (hasControlOrBidi(s)) return fail(ctx, 'TEXT_CONTROL_CHARS');
    if (max !== undefined && [...s].length > max) return fail(ctx, 'TEXT_TOO_LONG', `≤ ${max}`);
    return s;
  });
}

/** A comma-separated list (models, groups) whose items each become a row of a `max`-wide column. */
export function nameList(itemMax: number, totalMax?: number) {
  return z.string().transform((s, ctx): string => {
    if (hasNul(s)) return fail(ctx, 'TEXT_NUL_FORBIDDEN');
    if (totalMax !== undefined && [...s].length > totalMax) return fail(ctx, 'TEXT_TOO_LONG', `≤ ${totalMax}`);
    for (const item of s.split(',')) {
      const name = item.trim();
      if (hasControlOrBidi(name)) return fail(ctx, 'TEXT_CONTROL_CHARS', name);
      if ([...name].length > itemMax) return fail(ctx, 'TEXT_TOO_LONG', `≤ ${itemMax}`);
    }
    return s;
  });
}

/** NFKC-normalised and trimmed; empty stays empty (each caller has its own "required" message). */
export const username = z.string().transform((raw, ctx): string => {
  if (hasNul(raw)) return fail(ctx, 'TEXT_NUL_FORBIDDEN');
  const name = normaliseUsername(raw);
  const problem = name ? usernameProblem(name) : null;
  return problem ? fail(ctx, problem) : name;
});

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
