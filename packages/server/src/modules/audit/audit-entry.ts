import { AUDIT_MASK, escapeAuditText, isSecretAuditField, type AuditAction, type AuditChange, type AuditTarget } from '@modelgate/shared';
import type { AuditField, RouteAudit } from '@modelgate/shared/api';

/**
 * Pure parts of an audit entry (docs/security.md#audit-log): reading the declared request fields,
 * the before/after diff, masking, escaping and size caps. The hooks (audit-hooks.ts) feed them.
 * Every string an entry stores — a column, a field name, a value — goes through `auditText`.
 */

/** What one request brought: fastify's parsed params, query and body. */
export interface RequestParts {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/** A target's fields at one moment (null: it does not exist). */
export type Snapshot = Record<string, unknown> | null;

/** Longest string kept per recorded value; longer ones end in `…`. */
export const VALUE_MAX = 200;
/** Changed fields kept per entry (a reset of a whole price table changes hundreds). */
export const CHANGES_MAX = 60;
/** Request fields kept per entry. */
const REQUEST_FIELDS_MAX = 40;
/** Array items kept per request field (bulk ids). */
const ARRAY_MAX = 100;
/** `details` stays well inside MySQL's 64 KB TEXT whatever the characters. */
export const DETAILS_MAX = 12_000;
/** Column widths (migration 0010). */
export const TARGET_ID_MAX = 128;

function asRecord(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The value of a declared request field (`body.id`), or undefined. */
export function readField(req: RequestParts, field: AuditField): unknown {
  const at = field.indexOf('.');
  const part = field.slice(0, at) as 'params' | 'query' | 'body';
  return asRecord(req[part])[field.slice(at + 1)];
}

/** The action a call is recorded as: the declared one, or the one its `actionBy` field selects. */
export function actionOf(audit: RouteAudit, req: RequestParts): AuditAction {
  if (!audit.actionBy) return audit.action;
  const v = readField(req, audit.actionBy.field);
  const key = v === undefined || v === null ? '' : String(v);
  return Object.hasOwn(audit.actionBy.actions, key) ? audit.actionBy.actions[key]! : audit.action;
}

/** The ids the call acts on, as strings (an array field gives several; fixed ids as declared). */
export function targetIdsOf(audit: RouteAudit, req: RequestParts): string[] {
  if (!audit.targetId) return [];
  if (typeof audit.targetId !== 'string') return [...audit.targetId];
  const v = readField(req, audit.targetId);
  if (Array.isArray(v)) return v.map(String);
  return v === undefined || v === null || v === '' ? [] : [String(v)];
}

/**
 * A string as an entry stores it: control and bidi characters escaped (escapeAuditText), then
 * clipped to `max` characters of the escaped text — never inside an escape, and always within the
 * column's width however many escapes it took.
 */
export function auditText(s: string, max: number): string {
  const escaped = escapeAuditText(s);
  if ([...escaped].length <= max) return escaped;
  let out = '';
  let n = 0;
  for (const ch of s) {
    const e = escapeAuditText(ch);
    const len = e === ch ? 1 : e.length;
    if (n + len > max - 1) break;
    out += e;
    n += len;
  }
  return `${out}…`;
}

/** A value as the log keeps it: scalars as they are, long strings clipped, objects as clipped JSON. */
function keep(v: unknown): unknown {
  if (typeof v === 'string') return auditText(v, VALUE_MAX);
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v === undefined) return undefined;
  if (Array.isArray(v) && v.every((x) => typeof x === 'number' || typeof x === 'string')) {
    const items = v.slice(0, ARRAY_MAX).map((x) => (typeof x === 'string' ? auditText(x, VALUE_MAX) : x));
    return v.length > ARRAY_MAX ? [...items, `… +${v.length - ARRAY_MAX}`] : items;
  }
  // JSON escapes C0 controls itself, not C1 or bidi characters.
  return auditText(JSON.stringify(v) ?? '', VALUE_MAX);
}

/** The request's params, query and body fields, credentials masked, sizes capped. */
export function requestFields(target: AuditTarget, req: RequestParts): Record<string, unknown> {
  const all = { ...asRecord(req.params), ...asRecord(req.query), ...asRecord(req.body) };
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [field, value] of Object.entries(all)) {
    if (value === undefined) continue;
    if (n++ >= REQUEST_FIELDS_MAX) break;
    const secret = isSecretAuditField(target, field, all) && value !== '' && value !== null;
    out[escapeAuditText(field)] = secret ? AUDIT_MASK : keep(value);
  }
  return out;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The fields that differ between two snapshots (a deleted target: every field it had; a new one:
 * every field it has). Compared on the raw values, then masked: a changed key shows as changed.
 */
export function diff(target: AuditTarget, before: Snapshot, after: Snapshot): { changes: AuditChange[]; truncated: number } {
  if (!before && !after) return { changes: [], truncated: 0 };
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const all: AuditChange[] = [];
  for (const field of fields) {
    const b = before?.[field];
    const a = after?.[field];
    if (before && after && same(b, a)) continue;
    const secret = isSecretAuditField(target, field);
    const show = (v: unknown) => (secret && v !== '' && v !== null && v !== undefined ? AUDIT_MASK : keep(v));
    // Field names are data too: an option's entries are named after model names an admin typed.
    const change: AuditChange = { field: escapeAuditText(field) };
    if (before && b !== undefined) change.before = show(b);
    if (after && a !== undefined) change.after = show(a);
    all.push(change);
  }
  return { changes: all.slice(0, CHANGES_MAX), truncated: Math.max(0, all.length - CHANGES_MAX) };
}

export interface Details {
  request: Record<string, unknown>;
  changes: AuditChange[];
  changes_truncated?: number;
  result?: unknown;
}

/** The `details` column: JSON within DETAILS_MAX, dropping the last changes (counted) if it must. */
export function detailsJson(d: Details): string {
  let json = JSON.stringify(d);
  const changes = [...d.changes];
  let truncated = d.changes_truncated ?? 0;
  while (json.length > DETAILS_MAX && changes.length) {
    changes.pop();
    truncated++;
    json = JSON.stringify({ ...d, changes, changes_truncated: truncated });
  }
  if (json.length > DETAILS_MAX) json = JSON.stringify({ request: {}, changes, changes_truncated: truncated, result: d.result });
  return json;
}

/** The answer's `data` when the route records it: a count or a small object (a new id). */
export function resultOf(data: unknown): unknown {
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    return Object.fromEntries(Object.entries(data).slice(0, 10).map(([k, v]) => [escapeAuditText(k), keep(v)]));
  }
  return keep(data);
}
