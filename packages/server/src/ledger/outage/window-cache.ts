import type { ReserveInput, ReserveResult } from '../request-ops.js';
import type { HeldWindow, WindowMove, WindowState } from '../window-ops.js';

/** A window counter as this node last knew it, with what it has charged or given back since. */
export interface KnownCounter {
  start: number;
  end: number;
  quota: number;
  requests: number;
}

/** What one request holds in windows, as this node counted it: moved by its settle or release. */
interface WindowHold {
  wins: readonly HeldWindow[];
  amount: number;
}

const keyOf = (account: string, win: string) => `${account}/${win}`;

/**
 * Where the counter states this node learns are shared with the other nodes (redis-windows.ts):
 * told of states the database committed and of the differences settles and releases move, in
 * commit order, without waiting for an answer. Only callers with windows ever reach it.
 */
export interface WindowMirror {
  /** States read under their locks in a committed reservation (its charge included). */
  put(states: ReadonlyArray<[account: string, win: string, c: KnownCounter]>): void;
  /** A period's counter moved by a settle or a release. */
  add(moves: readonly WindowMove[]): void;
}

/**
 * The last known state of every window counter this node has seen (docs/reliability.md "Database
 * outage"), so a caller with periodic limits or plans can be served while the database is away.
 * Learnt from the ledger at no extra query: a reservation reads each window it decides on under
 * its lock (reserveOps `seen`) and these states are recorded, plus what it charged, once its
 * transaction commits; this node's settles and releases move them as they move the database.
 * During an outage the local reservation (local-reserve.ts) reads and charges these counters as
 * the database path reads and charges `window_counters`.
 */
export class WindowCache {
  private readonly counters = new Map<string, KnownCounter>();
  private readonly holds = new Map<string, WindowHold>();
  /** Set when Redis is configured: the other nodes see what this one learns and moves. */
  mirror: WindowMirror | undefined;

  get(account: string, win: string): KnownCounter | undefined {
    return this.counters.get(keyOf(account, win));
  }

  /** A counter now holds `c` (read from the database, or opened in a new period locally). */
  set(account: string, win: string, c: KnownCounter): void {
    this.counters.set(keyOf(account, win), c);
  }

  /** Adds to a counter's period `start` (nothing when the counter has moved on to another period). */
  add(account: string, win: string, start: number, quota: number, requests: number): void {
    const c = this.counters.get(keyOf(account, win));
    if (!c || c.start !== start) return;
    c.quota += quota;
    c.requests += requests;
  }

  /** A request now holds `amount` and one request in each of `wins` (its settle or release moves them). */
  hold(rid: string, wins: readonly HeldWindow[], amount: number): void {
    this.holds.set(rid, { wins, amount });
  }

  /**
   * A reservation the database committed: every window state it read, and — when it stands — the
   * amount and one request in the windows it was charged to (the paying plan's and the limits).
   */
  reserved(r: ReserveInput, seen: readonly WindowState[], result: ReserveResult): void {
    const payer = result.ok && result.paidBy ? r.plans?.find((p) => p.id === result.paidBy) : undefined;
    const wins: HeldWindow[] = [];
    const shared: Array<[string, string, KnownCounter]> = [];
    for (const s of seen) {
      const charged = result.ok && (r.windows?.includes(s.spec) || payer?.windows.includes(s.spec));
      const c = { start: s.start, end: s.refillAt, quota: s.used, requests: s.requests };
      if (charged) {
        c.quota += result.amount;
        c.requests += 1;
        wins.push([s.spec.account, s.spec.window, c.start, c.end]);
      }
      this.set(s.spec.account, s.spec.window, c);
      // A period the database has not opened (nothing charged to it) is not shared: an ended one reads as empty anyway.
      if (charged || s.current) shared.push([s.spec.account, s.spec.window, { ...c }]);
    }
    if (result.ok && wins.length) this.hold(r.requestId, wins, result.amount);
    if (shared.length) this.mirror?.put(shared);
  }

  /** Moves each window `h` holds by `quota` and `requests` (here and in the mirror). */
  private move(h: WindowHold, quota: number, requests: number): void {
    if (quota === 0 && requests === 0) return;
    this.moved(h.wins.map(([account, win, start]): WindowMove => [account, win, start, quota, requests]));
  }

  /** The request was charged `charge`: its windows move from what it held to that (once). */
  settled(rid: string, charge: number): void {
    const h = this.holds.get(rid);
    if (!h) return;
    this.holds.delete(rid);
    this.move(h, charge - h.amount, 0);
  }

  /** The request ended without a charge: its windows get back what it held (once); false when this node held none for it. */
  released(rid: string): boolean {
    const h = this.holds.get(rid);
    if (!h) return false;
    this.holds.delete(rid);
    this.move(h, -h.amount, -1);
    return true;
  }

  /** Counters the database moved for a request this node did not count (a refund, another node's released lease). */
  moved(moves: readonly WindowMove[]): void {
    if (!moves.length) return;
    for (const [account, win, start, quota, requests] of moves) this.add(account, win, start, quota, requests);
    this.mirror?.add(moves);
  }

  /** The windows `rid` holds (undefined: none this node counted). */
  heldBy(rid: string): readonly HeldWindow[] | undefined {
    return this.holds.get(rid)?.wins;
  }
}
