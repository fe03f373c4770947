/**
 * Conversions of new-api column values, as each driver hands them over (better-sqlite3 numbers and
 * strings, pg booleans, Dates and numeric strings, mysql2 numbers and date strings), into
 * ModelGate's column types. A value that cannot be converted throws `RowError`; the table's
 * importer then skips the row and reports why.
 */
export type Row = Record<string, unknown>;

export class RowError extends Error {}

function fail(col: string, why: string): never {
  throw new RowError(`${col} ${why}`);
}

/** An integer column (ids, quotas, times): a missing or NULL value is `fallback`. */
export function int(row: Row, col: string, fallback = 0): number {
  const v = row[col];
  if (v === null || v === undefined) return fallback;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) fail(col, `${v} is out of range`);
    return Number(v);
  }
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) fail(col, `"${String(v)}" is not an integer ModelGate can hold`);
  return n;
}

/** A decimal column (money, balances); PostgreSQL's NUMERIC arrives as a string. */
export function float(row: Row, col: string, fallback = 0): number {
  const v = row[col];
  if (v === null || v === undefined || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) fail(col, `"${String(v)}" is not a number`);
  return n;
}

/** A Go bool: PostgreSQL boolean, MySQL tinyint(1), SQLite numeric 0/1. Stored as 0/1. */
export function flag(row: Row, col: string, fallback = 0): number {
  const v = row[col];
  if (v === null || v === undefined) return fallback;
  if (v === true || v === 1 || v === '1' || v === 't' || v === 'true') return 1;
  if (v === false || v === 0 || v === '0' || v === 'f' || v === 'false') return 0;
  return fail(col, `"${String(v)}" is not a boolean`);
}

function asString(v: unknown): string {
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return typeof v === 'string' ? v : String(v);
}

/** A text column; `max` is the target column's length in characters. NULL becomes ''. */
export function text(row: Row, col: string, max?: number, fallback = ''): string {
  const v = row[col];
  if (v === null || v === undefined) return fallback;
  const s = asString(v);
  if (s.includes('\u0000')) fail(col, 'holds a NUL character');
  if (max !== undefined && [...s].length > max) fail(col, `is longer than ${max} characters`);
  return s;
}

/** A nullable text column (NULL and missing stay NULL). */
export function optText(row: Row, col: string, max?: number): string | null {
  const v = row[col];
  if (v === null || v === undefined) return null;
  return text(row, col, max);
}

/**
 * Like `optText`, but trimmed (PostgreSQL pads a CHAR(n) value) and an empty string is NULL too
 * (unique columns where '' would collide).
 */
export function emptyAsNull(row: Row, col: string, max?: number): string | null {
  const s = optText(row, col)?.trim() ?? '';
  if (max !== undefined && [...s].length > max) fail(col, `is longer than ${max} characters`);
  return s === '' ? null : s;
}

const GO_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?\s*(Z|[+-]\d{2}:?\d{2})?/;

/**
 * GORM's soft-delete column (`deleted_at`, a DATETIME / TIMESTAMPTZ) as Unix seconds, NULL when
 * the row is not deleted. SQLite keeps Go's text form (`2024-12-01 10:20:30.123+08:00`); MySQL's
 * DATETIME has no zone and is read as UTC (only whether and roughly when a row was deleted
 * matters to ModelGate).
 */
export function deletedAt(row: Row, col = 'deleted_at'): number | null {
  const v = row[col];
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) {
    const ms = v.getTime();
    if (Number.isNaN(ms)) fail(col, 'is not a valid time');
    return Math.floor(ms / 1000);
  }
  if (typeof v === 'number') return v > 1e12 ? Math.floor(v / 1000) : Math.floor(v);
  const s = asString(v).trim();
  const m = GO_TIME.exec(s);
  if (!m) fail(col, `"${s}" is not a time`);
  const [, y, mo, d, h, mi, sec, , zone] = m;
  let seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)) / 1000;
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    seconds -= sign * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4)) * 60);
  }
  return Math.floor(seconds);
}
