/**
 * The zod building blocks every `/api` schema uses (issue 10): integers a database column holds,
 * text a database stores (no NUL) and an admin screen shows honestly (no controls, no bidi),
 * normalised usernames, the three roles. A failed check becomes a zod issue whose message is a
 * message code (messages.ts), which the server localises — so a bad input is a clear message
 * naming the field, never a database 500.
 */
import { z } from 'zod';
import type { ServerMessageCode } from '../messages.js';
import { ROLE_VALUES } from '../roles.js';
import {
  hasControlOrBidi,
  hasNul,
  ID_MAX,
  INT32_MAX,
  normaliseUsername,
  PAGE_MAX,
  QUOTA_MAX,
  TIMESTAMP_MAX,
  usernameProblem,
} from '../validation.js';

type Ctx = z.RefinementCtx;

function fail(ctx: Ctx, code: ServerMessageCode, detail?: string): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', message: code, params: { code, detail } });
  return z.NEVER;
}

export type IntCheck = { ok: true; value: number } | { ok: false; code: 'INT_REQUIRED' | 'INT_OUT_OF_RANGE'; detail?: string };

/** A JSON integer or a decimal integer string; `1.5`, `"1.5"`, `1e3` strings, booleans are not. */
export function checkInt(v: unknown, min: number, max: number): IntCheck {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n)) return { ok: false, code: 'INT_REQUIRED' };
  if (n < min || n > max) return { ok: false, code: 'INT_OUT_OF_RANGE', detail: `${min} ~ ${max}` };
  return { ok: true, value: n };
}

/** An integer sent as a JSON number or a decimal string (the console and the reference send both). */
export type IntInput = number | string;

/**
 * `z.unknown()` so every wrong value reaches our own message (zod's would be English only); typed
 * as number in, number out for the console, and documented as an integer in the OpenAPI document.
 */
export function int(min: number, max: number): z.ZodType<number, IntInput> {
  return z
    .unknown()
    .transform((v, ctx): number => {
      const r = checkInt(v, min, max);
      return r.ok ? r.value : fail(ctx, r.code, r.detail);
    })
    .meta({ type: 'integer', minimum: min, maximum: max }) as unknown as z.ZodType<number, IntInput>;
}

/**
 * A query integer: absent, null or empty means "not given" (the console always sends every
 * filter, empty ones as `key=`).
 */
export function optionalInt(min: number, max: number): z.ZodOptional<z.ZodType<number, IntInput>> {
  const given = z.unknown().transform((v, ctx): number => {
    // `undefined` only for "", which the console sends for an unset filter (the output type is optional anyway).
    if (v === null || v === '') return undefined as unknown as number;
    const r = checkInt(v, min, max);
    return r.ok ? r.value : fail(ctx, r.code, r.detail);
  }) as unknown as z.ZodType<number, IntInput>;
  return given.optional().meta({ type: 'integer', minimum: min, maximum: max });
}

/** Any quota amount or delta: the client sends JSON numbers, exact only up to 2^53 − 1. */
export const quota = int(-QUOTA_MAX, QUOTA_MAX);
export const id = int(1, ID_MAX);
export const int32 = int(-INT32_MAX - 1, INT32_MAX);
/** A count or a limit: 0 upwards (0 usually means none). */
export const count32 = int(0, INT32_MAX);
/** An integer the service judges itself (a count, a minimum) but that must be exact. */
export const safeInt = int(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
/** Unix seconds; -1 is "never" where an expiry is meant. */
export const expiry = int(-1, TIMESTAMP_MAX);
/** Unix seconds in a query filter. */
export const queryTimestamp = optionalInt(0, TIMESTAMP_MAX);

export const role = z
  .unknown()
  .transform((v, ctx): number => {
    const r = checkInt(v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    return r.ok && (ROLE_VALUES as readonly number[]).includes(r.value) ? r.value : fail(ctx, 'ROLE_INVALID');
  })
  .meta({ type: 'integer', enum: [...ROLE_VALUES] }) as unknown as z.ZodType<number, IntInput>;

/** A switch sent as a JSON boolean, "true"/"false" or 0/1. */
export const boolLike = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true'), z.number().transform((n) => n !== 0)]);

/** A query switch: `true` or `1` is on, anything else (or nothing) off. */
export const queryFlag = z
  .union([z.string(), z.boolean()])
  .optional()
  .transform((v) => v === true || v === 'true' || v === '1');

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

/** A free-text query filter (keyword, group, …): one value; absent is "". */
export const queryText = z.string().optional();

/** Paged style (users, redemptions, logs): `p` from 1 (0 is read as 1), `page_size`. */
export const pageQuery = z.object({
  p: optionalInt(-PAGE_MAX, PAGE_MAX),
  page_size: optionalInt(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
});

/** List style (channels, tokens): `p` from 0; tokens send `size`, channels `page_size`. */
export const listQuery = z.object({
  p: optionalInt(-PAGE_MAX, PAGE_MAX),
  page_size: optionalInt(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  size: optionalInt(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
});

/**
 * Error map for parsing a request: zod's own issues carry a message code (messages.ts) the server
 * localises with the field's path, like the custom checks above. Schema-level messages win.
 */
export const requestIssueCodes: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type':
      return iss.input === undefined ? 'FIELD_REQUIRED' : 'FIELD_WRONG_TYPE';
    case 'invalid_union':
      return iss.input === undefined ? 'FIELD_REQUIRED' : 'FIELD_WRONG_TYPE';
    case 'invalid_value':
      return 'FIELD_INVALID_VALUE';
    case 'too_small':
      return iss.origin === 'string' && Number(iss.minimum) === 1 ? 'FIELD_REQUIRED' : undefined;
    default:
      return undefined;
  }
};
