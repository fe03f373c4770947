import type { Redis } from 'ioredis';
import { DbUnavailableError } from '../../db/db-unavailable.js';
import type { ReserveInput } from '../request-ops.js';
import type { HeldWindow, WindowMove, WindowSpec } from '../window-ops.js';
import type { LocalDecision } from './local-reserve.js';
import { WindowCache, type KnownCounter, type WindowMirror } from './window-cache.js';

/**
 * Window counters shared through Redis for a database outage (docs/reliability.md "Database
 * outage", issue 32 item 3). The database stays authoritative; Redis holds a mirror of each
 * `window_counters` row — a hash `modelgate:win:<account>/<window>` with the period (`s`, `e`),
 * what it used (`q`, `r`) and a version `v` that every write bumps — so that the nodes serving
 * through the same outage decide on one counter instead of each on its own last view.
 *
 * - While the database answers, every committed reservation, settle and release of a caller with
 *   windows is mirrored by one script call sent in commit order and not awaited (WindowMirror): a
 *   reservation writes the states it read under their locks plus its charge, a settle or a release
 *   the difference it moved. A period never goes backwards (a write for an older period is dropped).
 * - During the outage a reservation reads every window it may decide on, runs the ledger's own
 *   decision against that snapshot (local-reserve.ts), and commits its charges with a script that
 *   first checks that no counter it read has changed since (compare-and-set on `v`); a conflict
 *   re-reads and decides again. Settles and releases move the counters by the difference.
 * - Redis not ready, or a command that fails: `reserve` answers undefined and the caller decides
 *   from this node's own cache (WindowCache), which learns every shared state it reads here.
 */

const PREFIX = 'modelgate:win:';
/** How long a counter is kept after its period ends (an ended period reads as empty: it is only kept to be decidable). */
const KEEP_SEC = 7 * 86_400;
/**
 * How long after an outage's last charge to a counter a mirrored state cannot lower it: a node the
 * database came back to first must not wipe the charges other nodes have spooled but not replayed.
 */
const GUARD_MS = 10 * 60_000;
/**
 * Decisions retried after a conflicting write by another node before the request is refused (503).
 * Each node decides one request of a user at a time, so only other nodes conflict: with two nodes
 * each retry is a fair race, lost 20 times in a row about once in a million.
 */
const ATTEMPTS = 20;

/**
 * A state the database committed. An older period is left alone; while an outage guard runs, the
 * same period takes the larger of the two (the outage's charges are not in the database yet).
 * ARGV: now (ms), then per key: start, end, quota, requests, expire-at (ms).
 */
const PUT = `
local now = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local a = 2 + (i - 1) * 5
  local s, q, r = ARGV[a], ARGV[a + 2], ARGV[a + 3]
  local cur = redis.call('HMGET', key, 's', 'q', 'r', 'g')
  local cs = tonumber(cur[1])
  if not cs or cs <= tonumber(s) then
    if cs == tonumber(s) then
      if tonumber(cur[4] or '0') > now then
        if tonumber(cur[2]) > tonumber(q) then q = cur[2] end
        if tonumber(cur[3]) > tonumber(r) then r = cur[3] end
      end
    else
      redis.call('HDEL', key, 'g')
    end
    redis.call('HSET', key, 's', s, 'e', ARGV[a + 1], 'q', q, 'r', r)
    redis.call('HINCRBY', key, 'v', 1)
    redis.call('PEXPIREAT', key, ARGV[a + 4])
  end
end
return 1`;

/** A settle or release: the period's counter moves by the difference. ARGV: guard-until (ms, 0: none), then per key: start, quota, requests. */
const MOVE = `
for i, key in ipairs(KEYS) do
  local a = 2 + (i - 1) * 3
  if redis.call('HGET', key, 's') == ARGV[a] then
    redis.call('HINCRBY', key, 'q', ARGV[a + 1])
    redis.call('HINCRBY', key, 'r', ARGV[a + 2])
    redis.call('HINCRBY', key, 'v', 1)
    if ARGV[1] ~= '0' then redis.call('HSET', key, 'g', ARGV[1]) end
  end
end
return 1`;

/**
 * An outage reservation's charges, all or none: 0 when any counter it read has moved since.
 * ARGV: guard-until (ms), the version each key was read at ('0': absent), then per charged
 * counter: its index in KEYS, start, end, quota, requests, expire-at (ms).
 */
const CHARGE = `
local n = #KEYS
for i = 1, n do
  if (redis.call('HGET', KEYS[i], 'v') or '0') ~= ARGV[1 + i] then return 0 end
end
for a = n + 2, #ARGV, 6 do
  local key = KEYS[tonumber(ARGV[a])]
  redis.call('HSET', key, 's', ARGV[a + 1], 'e', ARGV[a + 2], 'q', ARGV[a + 3], 'r', ARGV[a + 4], 'g', ARGV[1])
  redis.call('HINCRBY', key, 'v', 1)
  redis.call('PEXPIREAT', key, ARGV[a + 5])
end
return 1`;

type Script = (numKeys: number, ...args: string[]) => Promise<unknown>;

/** A counter as read from Redis, with the version it was read at. */
type SharedCounter = KnownCounter & { v: string };

const expireAt = (end: number) => String((end + KEEP_SEC) * 1000);

export interface RedisWindowsLog {
  warn(o: object, msg: string): void;
}

export class RedisWindows implements WindowMirror {
  /** Whether this node is serving through a database outage (set by DbOutage): its moves then guard the counters. */
  outage: () => boolean = () => false;
  /** Mirror writes sent, reservations decided on the shared counters, conflicts retried, decisions left to the local cache (tests, metrics). */
  readonly stats = { mirrored: 0, shared: 0, conflicts: 0, fallbacks: 0 };
  private readonly scripts: { put: Script; move: Script; charge: Script };
  /** One decision per user at a time on this node: its windows and balances are only read and charged by it. */
  private readonly queues = new Map<number, Promise<unknown>>();
  private warnedAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly log?: RedisWindowsLog,
    private readonly prefix = PREFIX,
  ) {
    // EVALSHA with the script sent once per connection, not its text on every call.
    redis.defineCommand('mgWindowsPut', { lua: PUT });
    redis.defineCommand('mgWindowsMove', { lua: MOVE });
    redis.defineCommand('mgWindowsCharge', { lua: CHARGE });
    const r = redis as unknown as Record<string, Script>;
    this.scripts = { put: r.mgWindowsPut!.bind(redis), move: r.mgWindowsMove!.bind(redis), charge: r.mgWindowsCharge!.bind(redis) };
  }

  key(account: string, win: string): string {
    return `${this.prefix}${account}/${win}`;
  }

  /** A command is not even tried while the connection is not ready: it would wait in the offline queue and land out of order. */
  private get ready(): boolean {
    return this.redis.status === 'ready';
  }

  private failed(err: unknown): void {
    this.stats.fallbacks += 1;
    if (Date.now() - this.warnedAt < 60_000) return;
    this.warnedAt = Date.now();
    this.log?.warn({ err }, 'Redis unavailable: window counters are not shared; a database outage decides them from this node\'s own cache (logged at most once a minute)');
  }

  private send(script: Script, keys: string[], args: string[]): void {
    if (!keys.length) return;
    script(keys.length, ...keys, ...args).then(
      () => void (this.stats.mirrored += 1),
      (err: unknown) => this.failed(err),
    );
  }

  put(states: ReadonlyArray<[account: string, win: string, c: KnownCounter]>): void {
    if (!this.ready) return;
    const args = [String(Date.now())];
    for (const [, , c] of states) args.push(String(c.start), String(c.end), String(c.quota), String(c.requests), expireAt(c.end));
    this.send(this.scripts.put, states.map(([a, w]) => this.key(a, w)), args);
  }

  add(moves: readonly WindowMove[]): void {
    if (!this.ready) return;
    const args = [this.outage() ? String(Date.now() + GUARD_MS) : '0'];
    for (const [, , start, q, r] of moves) args.push(String(start), String(q), String(r));
    this.send(this.scripts.move, moves.map(([a, w]) => this.key(a, w)), args);
  }

  /** The counters of `specs` as Redis holds them (undefined: no counter). */
  async read(specs: readonly WindowSpec[]): Promise<Array<SharedCounter | undefined>> {
    const p = this.redis.pipeline();
    for (const w of specs) p.hmget(this.key(w.account, w.window), 's', 'e', 'q', 'r', 'v');
    const out = (await p.exec()) ?? [];
    return specs.map((_, i) => {
      const [err, row] = out[i] ?? [new Error('no reply')];
      if (err) throw err;
      const [s, e, q, r, v] = row as Array<string | null>;
      if (s == null || e == null) return undefined;
      return { start: Number(s), end: Number(e), quota: Number(q ?? 0), requests: Number(r ?? 0), v: v ?? '0' };
    });
  }

  /**
   * An outage reservation of `r` decided on the shared counters. `decide` runs the ledger's
   * decision against a snapshot (and holds the caller's balance when it stands); `undo` gives that
   * hold back when the charges could not be committed. Undefined: Redis cannot be used now — the
   * caller decides from `local`. Refused (DbUnavailableError) when other nodes kept moving the same
   * counters through every attempt.
   */
  reserve(r: ReserveInput, local: WindowCache, decide: (windows: WindowCache) => LocalDecision, undo: () => void): Promise<LocalDecision | undefined> {
    const prev = this.queues.get(r.userId) ?? Promise.resolve();
    const run = prev.then(() => this.attempt(r, local, decide, undo));
    const tail = run.catch(() => undefined);
    this.queues.set(r.userId, tail);
    void tail.then(() => {
      if (this.queues.get(r.userId) === tail) this.queues.delete(r.userId);
    });
    return run;
  }

  private async attempt(r: ReserveInput, local: WindowCache, decide: (windows: WindowCache) => LocalDecision, undo: () => void): Promise<LocalDecision | undefined> {
    // Every window the decision may read: the plans' in draw order, then the user's and the token's.
    const specs = new Map<string, WindowSpec>();
    for (const w of [...(r.plans ?? []).flatMap((p) => p.windows), ...(r.windows ?? [])]) specs.set(this.key(w.account, w.window), w);
    const keys = [...specs.keys()];
    const wins = [...specs.values()];
    for (let i = 0; i < ATTEMPTS; i++) {
      if (!this.ready) return this.fellBack();
      let rows: Array<SharedCounter | undefined>;
      try {
        rows = await this.read(wins);
      } catch (err) {
        return this.fellBack(err);
      }
      // A counter Redis does not hold (never mirrored, or lost) is taken from this node's own view when it has one.
      const snap = new WindowCache();
      wins.forEach((w, j) => {
        const c = rows[j] ?? local.get(w.account, w.window);
        if (c) snap.set(w.account, w.window, { start: c.start, end: c.end, quota: c.quota, requests: c.requests });
      });
      const d = decide(snap);
      const held = d.result.ok ? d.hold?.wins : undefined;
      if (held?.length) {
        let won: boolean;
        try {
          won = await this.commit(keys, rows, held, snap);
        } catch (err) {
          // A reply that timed out may still have been applied: the counters then hold one request too many (never too few).
          undo();
          return this.fellBack(err);
        }
        if (!won) {
          undo();
          this.stats.conflicts += 1;
          // At once the first times (a node that waits while another keeps deciding keeps losing), then a few random ms.
          if (i >= 2) await new Promise((res) => setTimeout(res, Math.random() * i));
          continue;
        }
        local.hold(r.requestId, held, d.result.ok ? d.result.amount : 0);
      }
      // This node's own view follows the shared one: it decides from there if Redis goes away too.
      for (const w of wins) {
        const c = snap.get(w.account, w.window);
        if (c) local.set(w.account, w.window, { ...c });
      }
      this.stats.shared += 1;
      return d;
    }
    throw new DbUnavailableError('the shared window counters kept changing under this request');
  }

  private fellBack(err?: unknown): undefined {
    this.failed(err);
    return undefined;
  }

  private async commit(keys: string[], rows: ReadonlyArray<SharedCounter | undefined>, held: readonly HeldWindow[], snap: WindowCache): Promise<boolean> {
    const args = [String(Date.now() + GUARD_MS), ...rows.map((c) => c?.v ?? '0')];
    for (const [account, win] of held) {
      const c = snap.get(account, win)!;
      args.push(String(keys.indexOf(this.key(account, win)) + 1), String(c.start), String(c.end), String(c.quota), String(c.requests), expireAt(c.end));
    }
    return Number(await this.scripts.charge(keys.length, ...keys, ...args)) === 1;
  }
}
