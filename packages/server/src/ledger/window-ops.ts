import type { PeriodWindow } from '@modelgate/shared';
import { all, get, run, type Ops, type Step, type StepResult } from './batch.js';
import type { Statements } from './statements.js';

/**
 * Windows in the ledger (docs/ledger.md "Windows and plans"): the current period of one
 * account's window — a user's or a token's periodic limit, or a subscription's allowance — is a
 * row of `window_counters`, read under its row lock inside the request's reserve transaction,
 * decided in memory, and written once the reservation is known to stand. Each request's charge to
 * each window is a row of `window_charges`, moved by its settle or release exactly once (behind
 * the outcome row), so a counter always equals the charges of its period.
 */

/** One window a request counts against: the account, its caps, and the period it opens when the current one is over. */
export interface WindowSpec {
  /** `u<user id>`, `t<token id>` or `s<subscription id>`. */
  account: string;
  window: PeriodWindow;
  /** Caps; 0 = none in that unit. */
  quota: number;
  requests: number;
  /** The period a request opens now (shared/periods.ts periodAt). */
  start: number;
  end: number;
}

/** A subscription that may pay for a request: its allowance windows. */
export interface PlanSpec {
  id: number;
  windows: readonly WindowSpec[];
}

/** The window that refused a request. */
export interface WindowBlock {
  account: string;
  window: PeriodWindow;
  unit: 'quota' | 'requests';
  limit: number;
  /** Unix seconds the window refills. */
  refillAt: number;
}

/** A window as read under its lock: the period a charge now lands in and what it has left. */
export interface WindowState {
  spec: WindowSpec;
  /** The counter's period is still running (else a charge opens the spec's new one). */
  current: boolean;
  start: number;
  /** Quota left (Infinity: no quota cap). */
  room: number;
  /** No request may be added (the requests cap is reached). */
  full: boolean;
  refillAt: number;
  /** What the period has used so far, as read (0 when a charge opens a new period). */
  used: number;
  requests: number;
}

/**
 * A window a reservation made during a database outage held (ledger/outage): account, window and
 * the period it was charged in. Spooled with the settle, charged in the database at replay.
 */
export type HeldWindow = [account: string, window: PeriodWindow, start: number, end: number];

/** A counter moved by a settle, a release or a refund: its period's start and the difference (for the outage mirror). */
export type WindowMove = [account: string, win: string, start: number, quota: number, requests: number];

const num = (v: unknown): number => Number(v ?? 0);

/** Reads one window under its row lock, creating its counter (empty) the first time it is used. */
function* lockWindow(q: Statements, w: WindowSpec, now: number): Generator<Step, WindowState, StepResult> {
  const key = { acct: w.account, win: w.window };
  let row = (yield get(q.windowLock(key))).row;
  if (!row) {
    // A counter never used: an empty row for the new period, then its lock (another node may have made it meanwhile).
    yield run(q.windowInsert({ ...key, start: w.start, end: w.end, q: 0, r: 0 }));
    row = (yield get(q.windowLock(key))).row;
  }
  const current = !!row && num(row.period_end) > now;
  const used = current ? num(row!.quota_used) : 0;
  const requests = current ? num(row!.requests_used) : 0;
  return {
    spec: w,
    current,
    start: current ? num(row!.period_start) : w.start,
    room: w.quota > 0 ? Math.max(0, w.quota - used) : Infinity,
    full: w.requests > 0 && requests >= w.requests,
    refillAt: current ? num(row!.period_end) : w.end,
    used,
    requests,
  };
}

/** What a set of windows lets a request take: the least room, and the window that sets it. */
export interface WindowsRoom {
  states: WindowState[];
  room: number;
  /** The first window with no room at all (or, failing that, the one with the least). */
  block?: WindowBlock;
}

function blockOf(s: WindowState, unit: 'quota' | 'requests'): WindowBlock {
  return { account: s.spec.account, window: s.spec.window, unit, limit: unit === 'quota' ? s.spec.quota : s.spec.requests, refillAt: s.refillAt };
}

/** `seen`: every state read is also added there (the outage's window cache learns them from the reservation). */
export function* lockWindows(q: Statements, windows: readonly WindowSpec[], now: number, seen?: WindowState[]): Generator<Step, WindowsRoom, StepResult> {
  const states: WindowState[] = [];
  let room = Infinity;
  let block: WindowBlock | undefined;
  let least: WindowState | undefined;
  for (const w of windows) {
    const s = yield* lockWindow(q, w, now);
    states.push(s);
    seen?.push(s);
    if (s.full) {
      room = 0;
      block ??= blockOf(s, 'requests');
    } else if (s.room <= 0) {
      room = 0;
      block ??= blockOf(s, 'quota');
    }
    if (s.room < room) room = s.room;
    if (s.room !== Infinity && (!least || s.room < least.room)) least = s;
  }
  if (!block && least) block = blockOf(least, 'quota');
  return { states, room, block };
}

/** Charges `amount` and one request to every window read by lockWindows, and records each charge. */
export function* chargeWindows(q: Statements, rid: string, states: readonly WindowState[], amount: number, now: number): Ops<void> {
  for (const s of states) {
    const key = { acct: s.spec.account, win: s.spec.window };
    if (s.current) yield run(q.windowAdd({ ...key, start: s.start, q: amount, r: 1 }));
    else yield run(q.windowSet({ ...key, start: s.start, end: s.spec.end, q: amount, r: 1 }));
    yield run(q.chargeInsert({ rid, ...key, start: s.start, q: amount, r: 1, now }));
  }
}

/**
 * Moves every window charge of `rid` to `quota` and `requests` (a settle: the charge and one
 * request; a release: nothing), and each counter by the difference — when its period is still
 * the one the charge was made in. Runs behind the request's outcome row, so exactly once. Answers
 * the moves, for the nodes' shared counters (ledger/outage/redis-windows.ts).
 */
export function* settleWindows(q: Statements, rid: string, quota: number, requests: number): Ops<WindowMove[]> {
  const rows = (yield all(q.chargesOf({ rid }))).rows ?? [];
  const moves: WindowMove[] = [];
  for (const c of rows) {
    const dq = quota - num(c.quota);
    const dr = requests - num(c.requests);
    if (dq === 0 && dr === 0) continue;
    const key = { acct: String(c.account), win: String(c.win) };
    yield run(q.windowAdd({ ...key, start: num(c.period_start), q: dq, r: dr }));
    yield run(q.chargeSet({ rid, ...key, q: quota, r: requests }));
    moves.push([key.acct, key.win, num(c.period_start), dq, dr]);
  }
  return moves;
}

/**
 * Charges the windows a reservation held only on a node serving through a database outage
 * (ledger/outage): at replay, behind the request's outcome row, so exactly once. Each charge lands
 * in the counter's period when that period overlaps the one the node charged (a rolling window
 * another node opened meanwhile included); a counter still in an older period moves to the
 * charged one; a counter already in a later period is left alone (the charged period is over) and
 * only the charge is recorded. A charge may take a counter past its cap: by no more than the node
 * let through while the database was away.
 */
export function* chargeHeldWindows(q: Statements, rid: string, held: readonly HeldWindow[], amount: number, now: number): Ops<void> {
  for (const [acct, win, start, end] of held) {
    const key = { acct, win };
    let row = (yield get(q.windowLock(key))).row;
    if (!row) {
      yield run(q.windowInsert({ ...key, start, end, q: 0, r: 0 }));
      row = (yield get(q.windowLock(key))).row;
    }
    const rowStart = num(row?.period_start);
    let at = start;
    if (row && rowStart < end && num(row.period_end) > start) {
      at = rowStart;
      yield run(q.windowAdd({ ...key, start: at, q: amount, r: 1 }));
    } else if (!row || num(row.period_end) <= start) {
      yield run(q.windowSet({ ...key, start, end, q: amount, r: 1 }));
    }
    yield run(q.chargeInsert({ rid, ...key, start: at, q: amount, r: 1, now }));
  }
}
