import { isTransient } from './ledger.js';

/** A deadlock (PostgreSQL, MySQL) or a SQLite writer that found the file locked past its busy timeout. */
function retryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return isTransient(err) || (typeof code === 'string' && code.startsWith('SQLITE_BUSY'));
}

/** Runs a transaction again when the database aborted it: every step in it is conditional. */
export async function retryTransient<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 8 || !retryable(err)) throw err;
      await new Promise((r) => setTimeout(r, 2 + Math.random() * 10 * (attempt + 1)));
    }
  }
}
