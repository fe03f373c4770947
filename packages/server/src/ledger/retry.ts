/** Deadlock or serialisation failure (PostgreSQL 40P01 / 40001, MySQL 1213 / 1205): safe to retry. */
export function isTransient(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown };
  return e?.code === '40P01' || e?.code === '40001' || e?.errno === 1213 || e?.errno === 1205;
}

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
