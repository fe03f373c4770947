import { PERIOD_WINDOWS, parsePeriodLimits, periodAt, type PeriodLimits, type WindowMeter, type WindowScope } from '@modelgate/shared';
import type { UserPlanRow } from '../../db/schema.js';
import type { Db } from '../../db/client.js';

/** The ledger's window accounts (window_counters.account): a user's, a token's and a subscription's limits. */
export const userAccount = (id: number) => `u${id}`;
export const tokenAccount = (id: number) => `t${id}`;
export const planAccount = (id: number) => `s${id}`;

/** The counters of `accounts`. */
export function readCounters(db: Db, accounts: string[]) {
  if (!accounts.length) return Promise.resolve([]);
  return db.db.selectFrom('window_counters').selectAll().where('account', 'in', accounts).execute();
}

/** One account whose windows are shown. */
export interface MeterSource {
  scope: WindowScope;
  id: number;
  name: string;
  account: string;
  limits: PeriodLimits;
}

export const userSource = (u: { id: number; period_limits?: string | null }): MeterSource => ({
  scope: 'user',
  id: Number(u.id),
  name: '',
  account: userAccount(Number(u.id)),
  limits: parsePeriodLimits(u.period_limits),
});

export const tokenSource = (t: { id: number; name: string; period_limits?: string | null }): MeterSource => ({
  scope: 'token',
  id: Number(t.id),
  name: t.name,
  account: tokenAccount(Number(t.id)),
  limits: parsePeriodLimits(t.period_limits),
});

export const planSource = (p: Pick<UserPlanRow, 'id' | 'name' | 'allowances'>): MeterSource => ({
  scope: 'plan',
  id: Number(p.id),
  name: p.name,
  account: planAccount(Number(p.id)),
  limits: parsePeriodLimits(p.allowances),
});

/**
 * The meters of `sources` now: what each window's running period has used (requests in flight
 * included) and when it refills. A window whose period is over reads as empty; a calendar window
 * refills at the end of the current day, week or month, a rolling one that has not opened at 0.
 */
export async function windowMeters(db: Db, sources: readonly MeterSource[], tz: string, now: number): Promise<WindowMeter[]> {
  const limited = sources.filter((s) => Object.keys(s.limits).length);
  const rows = await readCounters(db, limited.map((s) => s.account));
  const byKey = new Map(rows.map((r) => [`${r.account}/${r.win}`, r]));
  const out: WindowMeter[] = [];
  for (const s of limited) {
    for (const w of PERIOD_WINDOWS) {
      const cap = s.limits[w];
      if (!cap) continue;
      const row = byKey.get(`${s.account}/${w}`);
      const running = !!row && Number(row.period_end) > now;
      out.push({
        scope: s.scope,
        id: s.id,
        name: s.name,
        window: w,
        quota_limit: cap.quota,
        quota_used: running ? Number(row!.quota_used) : 0,
        requests_limit: cap.requests,
        requests_used: running ? Number(row!.requests_used) : 0,
        refill_at: running ? Number(row!.period_end) : w === '5h' ? 0 : periodAt(w, now, tz).end,
      });
    }
  }
  return out;
}
