import type { TestServer } from './test-server.js';

/**
 * Window counters for tests (docs/ledger.md "Windows and plans"): read one, or move an account's
 * periods into the past by `seconds` — time passing, for windows that last hours or days.
 */
export async function windowCounter(h: { server: Pick<TestServer, 'ctx'> }, account: string, win: string) {
  const row = await h.server.ctx.db.db.selectFrom('window_counters').selectAll().where('account', '=', account).where('win', '=', win).executeTakeFirst();
  if (!row) return undefined;
  return { period_start: Number(row.period_start), period_end: Number(row.period_end), quota_used: Number(row.quota_used), requests_used: Number(row.requests_used) };
}

/** As if `seconds` had passed for `account`'s windows: their periods and the charges made in them move back by as much. */
export async function timeTravelWindows(h: { server: Pick<TestServer, 'ctx'> }, account: string, seconds: number): Promise<void> {
  const db = h.server.ctx.db.db;
  const rows = await db.selectFrom('window_counters').selectAll().where('account', '=', account).execute();
  for (const r of rows) {
    await db
      .updateTable('window_charges')
      .set({ period_start: Number(r.period_start) - seconds })
      .where('account', '=', account)
      .where('win', '=', r.win)
      .where('period_start', '=', Number(r.period_start))
      .execute();
    await db
      .updateTable('window_counters')
      .set({ period_start: Number(r.period_start) - seconds, period_end: Number(r.period_end) - seconds })
      .where('account', '=', account)
      .where('win', '=', r.win)
      .execute();
  }
}
