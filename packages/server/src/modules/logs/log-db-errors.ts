import type { Db } from '../../db/client.js';
import { AppError } from '../../http/errors.js';

/**
 * Runs a read or delete of the log database. When that is a database of its own (LOG_SQL_DSN) and
 * the call fails, the console gets a 503 that says so — the relay keeps billing meanwhile and the
 * rows wait in the outbox — instead of a 500 "internal error". A failure of the main database, and
 * the caller's own errors (AppError), pass through unchanged.
 */
export async function onLogDb<T>(main: Db, logDb: Db, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (logDb === main || err instanceof AppError) throw err;
    throw new AppError('LOG_DB_UNAVAILABLE', 503);
  }
}

/** `repo` with every method run through `onLogDb` (the log, quota-data and audit repositories). */
export function onLogDbRepository<T extends object>(repo: T, main: Db, logDb: Db): T {
  if (logDb === main) return repo;
  return new Proxy(repo, {
    get(target, key, receiver) {
      const v: unknown = Reflect.get(target, key, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => onLogDb(main, logDb, () => (v as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
}
