import { add, get, move, NO_FLOOR, read, run, type Ops } from './batch.js';
import { RELEASED, SETTLED, type Args, type LogValues, type Statements } from './statements.js';
import { chargeHeldWindows, chargeWindows, lockWindows, settleWindows, type HeldWindow, type PlanSpec, type WindowBlock, type WindowMove, type WindowSpec, type WindowState } from './window-ops.js';

/**
 * The request side of the ledger as step generators (docs/ledger.md): what one reserve, settle
 * or release does inside the writer's transaction (ledger-writer.ts, batch.ts). Locks are taken
 * in one order everywhere — outcome row, reservation, user, (subscription windows), token,
 * (user and token windows) — so concurrent requests serialise instead of deadlocking.
 */

export interface ReserveInput {
  requestId: string;
  userId: number;
  tokenId: number;
  /** False for unlimited tokens: only the user is debited. */
  tokenLimited: boolean;
  amount: number;
  /** When set, take what remains if the full amount does not fit, as long as it is at least this. */
  min?: number;
  now: number;
  /** The user's and the token's periodic limits: counted whoever pays. */
  windows?: readonly WindowSpec[];
  /** The user's subscriptions that may pay, in draw order: the first with room pays instead of the wallet. */
  plans?: readonly PlanSpec[];
  /** With `plans`: whether the wallet pays when none of them can (else the request is refused). */
  fallThrough?: boolean;
}

export type ReserveResult =
  /** `paidBy`: the subscription that pays (absent: the wallet); `windows`: how many windows the request holds (absent: none). */
  | { ok: true; amount: number; paidBy?: number; windows?: number }
  /** `available`: what the account that fell short could still pay (-1 when not read). */
  | { ok: false; who: 'user' | 'token'; available: number }
  /** The request id already has a terminal outcome: nothing was taken. */
  | { ok: false; who: 'finished'; available: number }
  /** A window (periodic limit or plan allowance) cannot take the request: refused until `block.refillAt`. */
  | { ok: false; who: 'window'; available: number; block: WindowBlock }
  /** A window or plan could pay part of it: ask again with `min`, and the reservation is clamped to what is left. */
  | { ok: false; who: 'short'; available: number };

export interface SettleInput {
  requestId: string;
  userId: number;
  tokenId: number;
  tokenLimited: boolean;
  /** What reserve() took (0 when nothing was reserved; LOOKUP: whatever reservation the database holds for the request). */
  reserved: number;
  /** The actual cost. */
  charge: number;
  channelId: number;
  responseTimeMs: number;
  /** The consume log row; `quota` and `other` are filled with the amount really charged. */
  log: ((charged: number, shortfall: number) => LogValues) | null;
  /** The subscription that paid (ReserveResult.paidBy; 0 or absent: the wallet). */
  paidBy?: number;
  /** The request holds windows (ReserveResult.windows > 0). */
  windows?: boolean;
  /**
   * The windows a reservation made during a database outage held on its node (ledger/outage):
   * charged here when the database holds no reservation for the request (else the reservation's own are).
   */
  held?: readonly HeldWindow[];
}

export interface SettleResult {
  /** What the user was charged (≤ charge: a user who cannot cover an overrun is taken to zero). */
  charged: number;
  /** True when this request had already been settled: nothing moved. */
  duplicate: boolean;
}

/** `SettleInput.reserved` of a replayed or outage-served request: the database's reservation row, if one exists, says what was held. */
export const LOOKUP = -1;

const num = (v: unknown): number => Number(v ?? 0);

/**
 * Debits the paying account (a subscription's allowance or the wallet), the token and the windows;
 * says who could not cover it. `seen` collects every window state read (the outage's window cache).
 */
export function* reserveOps(q: Statements, r: ReserveInput, node: string, lease: number, seen?: WindowState[]): Ops<ReserveResult> {
  let amount = r.amount;
  const need = r.min ?? amount;
  let paidBy = 0;
  let planStates: WindowState[] = [];
  let short = false;
  let planBlock: WindowBlock | undefined;
  if (r.plans?.length) {
    // The user's row first, as settle and release take it: every lock of this user's requests queues behind it.
    yield read('users', r.userId);
    for (const p of r.plans) {
      const w = yield* lockWindows(q, p.windows, r.now, seen);
      if (w.room > 0 && w.room >= need) {
        paidBy = p.id;
        planStates = w.states;
        amount = Math.min(amount, w.room);
        break;
      }
      if (w.room > 0 && r.min === undefined) short = true;
      planBlock ??= w.block;
    }
    if (!paidBy) {
      if (short) return { ok: false, who: 'short', available: -1 };
      if (!r.fallThrough) return { ok: false, who: 'window', available: 0, block: planBlock! };
    }
  }
  const fromWallet = paidBy === 0;
  let userTaken = 0;
  let tokenTaken = 0;
  if (amount > 0) {
    const userOk = !fromWallet || (yield move('users', r.userId, amount, amount)).affected > 0;
    const tokenOk = userOk && (!r.tokenLimited || (yield move('tokens', r.tokenId, amount, amount)).affected > 0);
    if (fromWallet && userOk && !tokenOk) yield move('users', r.userId, -amount, NO_FLOOR);
    if (!tokenOk) {
      if (r.min === undefined || r.min >= amount) return { ok: false, who: userOk ? 'token' : 'user', available: -1 };
      // Clamp: read both balances under a lock and take what remains, if that covers `min`.
      const userAvail = fromWallet ? Math.max(0, num((yield read('users', r.userId)).row?.quota)) : Infinity;
      const tokenAvail = r.tokenLimited ? Math.max(0, num((yield read('tokens', r.tokenId)).row?.remain_quota)) : Infinity;
      const avail = Math.min(userAvail, tokenAvail);
      if (avail < r.min || avail <= 0) return { ok: false, who: userAvail <= tokenAvail ? 'user' : 'token', available: avail };
      amount = Math.min(amount, avail);
      if (fromWallet) yield move('users', r.userId, amount, amount);
      if (r.tokenLimited) yield move('tokens', r.tokenId, amount, amount);
    }
    userTaken = fromWallet ? amount : 0;
    tokenTaken = r.tokenLimited ? amount : 0;
  }
  let limitStates: WindowState[] = [];
  if (r.windows?.length) {
    const w = yield* lockWindows(q, r.windows, r.now, seen);
    limitStates = w.states;
    if (w.room < amount) {
      const clamp = r.min !== undefined && w.room > 0 && w.room >= r.min;
      // Give back what the window cannot let through (all of it when it refuses).
      const back = clamp ? amount - w.room : amount;
      if (userTaken) yield move('users', r.userId, -back, NO_FLOOR);
      if (tokenTaken) yield move('tokens', r.tokenId, -back, NO_FLOOR);
      if (!clamp) return w.room > 0 && r.min === undefined ? { ok: false, who: 'short', available: w.room } : { ok: false, who: 'window', available: 0, block: w.block! };
      amount = w.room;
      userTaken = userTaken ? amount : 0;
      tokenTaken = tokenTaken ? amount : 0;
    }
  }
  const states = [...planStates, ...limitStates];
  const inserted = yield run(
    q.insertReservation({ rid: r.requestId, uid: r.userId, tid: r.tokenId, ua: userTaken, ta: tokenTaken, now: r.now, node, lease, paid: paidBy, wins: states.length }),
  );
  if (!inserted.affected) {
    // Already settled or released: give back what was just taken.
    if (userTaken) yield move('users', r.userId, -userTaken, NO_FLOOR);
    if (tokenTaken) yield move('tokens', r.tokenId, -tokenTaken, NO_FLOOR);
    return { ok: false, who: 'finished', available: -1 };
  }
  if (states.length) yield* chargeWindows(q, r.requestId, states, amount, r.now);
  return paidBy || states.length ? { ok: true, amount, paidBy, windows: states.length } : { ok: true, amount };
}

/**
 * Charges the actual cost and writes the log row. If the wallet (or a limited token) cannot cover
 * an overrun beyond the reservation, it is taken to zero and the unpaid rest is recorded as
 * `shortfall` — never a negative balance. A subscription pays the whole charge: its windows take
 * what was used even past a cap (a metered stream keeps that to one chunk).
 */
export function* settleOps(q: Statements, s: SettleInput, now: number): Ops<SettleResult> {
  let paidBy = s.paidBy ?? 0;
  let windows = s.windows === true;
  const tokenTaken0 = s.tokenLimited ? s.charge : 0;
  const ins = yield run(q.insertRequest({ rid: s.requestId, state: SETTLED, uid: s.userId, tid: s.tokenId, charge: s.charge, tt: tokenTaken0, sf: 0, now, paid: paidBy }));
  let heldUser = 0;
  let heldToken = 0;
  /** Windows only the outage's node held: charged afresh below. */
  let held: readonly HeldWindow[] | undefined;
  if (ins.affected) {
    if (s.reserved === LOOKUP) {
      const row = (yield get(q.selectReservation({ rid: s.requestId }))).row;
      if (!row) held = s.held;
      else if ((yield run(q.deleteReservation({ rid: s.requestId }))).affected) {
        heldUser = num(row.user_amount);
        heldToken = num(row.token_amount);
        windows = num(row.windows) > 0;
        if (num(row.paid_by) !== paidBy) {
          paidBy = num(row.paid_by);
          yield run(q.setPaidBy({ rid: s.requestId, paid: paidBy }));
        }
      }
    } else if (s.reserved > 0 && (yield run(q.deleteReservation({ rid: s.requestId }))).affected) {
      heldUser = paidBy ? 0 : s.reserved;
      heldToken = s.tokenLimited ? s.reserved : 0;
    }
  } else {
    const row = (yield get(q.selectRequest({ rid: s.requestId }))).row;
    if (!row || num(row.state) !== RELEASED) return { charged: num(row?.charge), duplicate: true };
    // Released earlier (its lease ran out): charge afresh, exactly once, to whoever the reservation said pays.
    if (!(yield run(q.releasedToSettled({ rid: s.requestId, charge: s.charge, tt: tokenTaken0, sf: 0 }))).affected) {
      return { charged: 0, duplicate: true };
    }
    paidBy = num(row.paid_by);
    windows = true;
  }
  let charged = s.charge;
  if (paidBy) {
    // The subscription pays: the wallet does not move, the usage counters do.
    yield move('users', s.userId, 0, NO_FLOOR, s.charge, 1);
  } else {
    const delta = s.charge - heldUser;
    if (!(yield move('users', s.userId, delta, delta > 0 ? delta : NO_FLOOR, s.charge, 1)).affected) {
      const quota = Math.max(0, num((yield read('users', s.userId)).row?.quota));
      const take = Math.min(quota, delta);
      charged = heldUser + take;
      if (!(yield move('users', s.userId, take, take, charged, 1)).affected) charged = heldUser;
    }
  }
  let tokenTaken = 0;
  if (s.tokenId > 0) {
    if (s.tokenLimited) {
      const td = charged - heldToken;
      tokenTaken = charged;
      if (!(yield move('tokens', s.tokenId, td, td > 0 ? td : NO_FLOOR, charged)).affected) {
        // A token's limit is a spending cap, not money: an overrun takes it to zero.
        const remain = Math.max(0, num((yield read('tokens', s.tokenId)).row?.remain_quota));
        const take = Math.min(remain, td);
        tokenTaken = heldToken + take;
        yield move('tokens', s.tokenId, take, take, charged);
      }
    } else yield add({ table: 'tokens', id: s.tokenId, charge: charged, rt: 0 });
  }
  if (held?.length) yield* chargeHeldWindows(q, s.requestId, held, charged, now);
  else if (windows) yield* settleWindows(q, s.requestId, charged, 1);
  if (charged !== s.charge || tokenTaken !== tokenTaken0) {
    yield run(q.fixRequest({ rid: s.requestId, charge: charged, tt: tokenTaken, sf: s.charge - charged }));
  }
  if (s.channelId > 0) yield add({ table: 'channels', id: s.channelId, charge: charged, rt: s.responseTimeMs });
  if (s.log) yield run(q.insertLog(s.log(charged, s.charge - charged) as unknown as Args));
  return { charged, duplicate: false };
}

/** What a release did: false when there was no reservation to give back; the window counters it moved. */
export interface ReleaseResult {
  released: boolean;
  moves: WindowMove[];
}

/** Gives a reservation back — wallet, token and windows — and records the outcome. */
export function* releaseOps(q: Statements, requestId: string, now: number): Ops<ReleaseResult> {
  const none = { released: false, moves: [] };
  const row = (yield get(q.selectReservation({ rid: requestId }))).row;
  if (!row) return none;
  const uid = num(row.user_id);
  // The outcome row first, as settle does: both claim the request id in the same order
  // (ledger_requests, then reservations, users, tokens, windows), so they serialise instead of deadlocking.
  if (!(yield run(q.insertRequest({ rid: requestId, state: RELEASED, uid, tid: num(row.token_id), charge: 0, tt: 0, sf: 0, now, paid: num(row.paid_by) }))).affected) return none;
  if (!(yield run(q.deleteReservation({ rid: requestId }))).affected) return { released: true, moves: [] };
  const windows = num(row.windows) > 0;
  if (num(row.user_amount) > 0) yield move('users', uid, -num(row.user_amount), NO_FLOOR);
  else if (windows) yield read('users', uid);
  if (num(row.token_amount) > 0) yield move('tokens', num(row.token_id), -num(row.token_amount), NO_FLOOR);
  return { released: true, moves: windows ? yield* settleWindows(q, requestId, 0, 0) : [] };
}
