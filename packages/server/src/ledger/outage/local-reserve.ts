import { DbUnavailableError } from '../../db/db-unavailable.js';
import type { BalanceMove, Step, StepResult } from '../batch.js';
import { reserveOps, type ReserveInput, type ReserveResult } from '../request-ops.js';
import type { Args, Bound, Statements } from '../statements.js';
import type { HeldWindow } from '../window-ops.js';
import type { WindowCache } from './window-cache.js';

/**
 * The reservation of a caller with periodic limits or plans while the database is away
 * (docs/reliability.md "Database outage"): the ledger's own reserveOps — plans tried in order,
 * fall-through to the wallet, clamping, the first full window refusing with its block — run
 * against this node's memory instead of SQL. Its statements are bound to their names, and each
 * step is answered here: the wallet and the token from the balances this node may still spend,
 * the windows from the counters it last saw (WindowCache) plus what it charged since. A window
 * this node has never seen cannot be decided: the request is refused (503), as an uncached caller is.
 */

/** The statements reserveOps uses, each bound to its own name: `{ sql: name, parameters: [args] }`. */
const BY_NAME = new Proxy(
  {},
  { get: (_target, name) => (args: Args): Bound => ({ sql: String(name), parameters: [args] }) },
) as Statements;

/** What a local reservation that stands holds: the wallet's and the token's parts, the payer and the windows. */
export interface LocalWindowsHold {
  user: number;
  token: number;
  paid: number;
  wins: HeldWindow[];
}

export interface LocalDecision {
  result: ReserveResult;
  /** Set when the reservation stands. */
  hold?: LocalWindowsHold;
}

/**
 * Decides `r` against `balances` (what the user and the token may still spend here; Infinity for
 * an unlimited token) and the cached windows. When it stands, the windows it was charged to have
 * taken the amount and one request in `windows`. `taken(rid)`: this node already holds the request.
 */
export function reserveLocally(r: ReserveInput, balances: { user: number; token: number }, windows: WindowCache, taken: (rid: string) => boolean): LocalDecision {
  const bal = { users: balances.user, tokens: balances.token };
  let hold: LocalWindowsHold | undefined;

  const move = (m: BalanceMove): StepResult => {
    if (bal[m.t] < m.min) return { affected: 0 };
    bal[m.t] -= m.take;
    return { affected: 1 };
  };

  const sql = (b: Bound): StepResult => {
    const a = b.parameters[0] as Record<string, never>;
    switch (b.sql) {
      case 'windowLock': {
        const c = windows.get(a.acct, a.win);
        // The database path would read (or open) the counter: this node cannot tell what it holds.
        if (!c) throw new DbUnavailableError(`the window ${a.acct}/${a.win} is not known on this node`);
        return { affected: 0, row: { period_start: c.start, period_end: c.end, quota_used: c.quota, requests_used: c.requests } };
      }
      case 'insertReservation':
        if (taken(a.rid)) return { affected: 0 };
        hold = { user: a.ua, token: a.ta, paid: a.paid, wins: [] };
        return { affected: 1 };
      case 'windowAdd':
        windows.add(a.acct, a.win, a.start, a.q, a.r);
        return { affected: 1 };
      case 'windowSet':
        windows.set(a.acct, a.win, { start: a.start, end: a.end, quota: a.q, requests: a.r });
        return { affected: 1 };
      case 'chargeInsert': {
        const c = windows.get(a.acct, a.win)!;
        hold!.wins.push([a.acct, a.win, a.start, c.end]);
        return { affected: 1 };
      }
      default:
        throw new Error(`reserveOps ran ${b.sql}, which the outage's local reservation does not answer`);
    }
  };

  const answer = (step: Step): StepResult => {
    switch (step.kind) {
      case 'move':
        return move(step.m);
      case 'read':
        return { affected: 0, row: step.t === 'users' ? { quota: bal.users } : { remain_quota: bal.tokens } };
      case 'sql':
        return sql(step.q);
      case 'add':
        throw new Error('reserveOps added to a running sum, which the outage\'s local reservation does not answer');
    }
  };

  const ops = reserveOps(BY_NAME, r, 'local', 0);
  let step = ops.next();
  while (!step.done) step = ops.next(answer(step.value));
  const result = step.value;
  if (result.ok && hold) windows.hold(r.requestId, hold.wins, result.amount);
  return { result, hold: result.ok ? hold : undefined };
}
