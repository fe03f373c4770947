/**
 * Errors that mean "the database cannot be reached or cannot write right now", as opposed to a
 * query it refused. The ledger turns them into an outage (ledger/outage): the relay serves from
 * its caches and spools settlements; the console answers 503.
 */

/** Thrown by ModelGate itself when the database did not answer in time or an outage is known. */
export class DbUnavailableError extends Error {
  readonly code = 'MG_DB_UNAVAILABLE';
  constructor(reason: string) {
    super(`the database is unavailable: ${reason}`);
  }
}

/** Socket-level failures (node:net) of a connection to PostgreSQL or MySQL. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/** MySQL client and server codes of a lost or refused connection (mysql2 `code`). */
const MYSQL = new Set(['PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN', 'ER_SERVER_GONE_ERROR', 'ER_SERVER_LOST', 'ER_ACCESS_DENIED_ERROR_UNAVAILABLE']);

/**
 * SQLite: a file another process holds locked past busy_timeout, a full or failing disk, a file
 * that cannot be opened or written (better-sqlite3 `code`, extended codes start with these).
 */
const SQLITE = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PROTOCOL'];

/** pg's own messages for a pool or client that lost its server (they carry no code). */
const PG_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection closed',
  'the database system is',
  'terminating connection',
];

export function isDbUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (err instanceof DbUnavailableError) return true;
  const e = err as { code?: unknown; fatal?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (NETWORK.has(code) || MYSQL.has(code)) return true;
  // PostgreSQL SQLSTATE class 08 (connection exception), 57P01-03 (shutdown, cannot connect now), 53300 (too many connections).
  if (/^08[0-9A-Z]{3}$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
  if (SQLITE.some((c) => code.startsWith(c))) return true;
  // mysql2 marks an error that closed the connection as fatal.
  if (e.fatal === true) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (PG_MESSAGES.some((m) => message.includes(m))) return true;
  // AggregateError (a connect to several addresses) and wrapped causes.
  if (Array.isArray(e.errors) && e.errors.some(isDbUnavailable)) return true;
  return e.cause !== undefined && e.cause !== err && isDbUnavailable(e.cause);
}

/** `p`, or a DbUnavailableError after `ms` (the promise itself runs on; its outcome is ignored). */
export function withDbDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DbUnavailableError(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
