import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Ops } from './batch.js';
import { execAsync } from './ledger-writer.js';
import type { MoveResult, QuotaLedger } from './quota-ledger.js';
import { SETTLED, type Statements } from './statements.js';
import { settleWindows, type WindowMove } from './window-ops.js';

/**
 * Refunds of settled requests (docs/ledger.md "Windows and plans"): a failed task gives its charge
 * back where it came from — the wallet if the wallet paid, else nothing to the wallet (the plan's
 * allowance was what paid) — and every window the request was counted in gets its charge and its
 * request back, as a release would. It runs in the caller's transaction (the task row's state
 * change), claimed by the movement's `ref` first, so however many pollers or nodes see the same
 * failure it happens once, and only with the row's change.
 */
export interface RefundInput {
  /** The ledger request the charge was settled under; '' when unknown (rows of earlier versions): the wallet is credited. */
  requestId: string;
  userId: number;
  /** What the request was charged, all of which comes back. */
  quota: number;
  /** The exactly-once key of the `refund` movement (`<kind ref>:<row id>`). */
  ref: string;
}

export interface RefundResult {
  result: MoveResult;
  /** The subscription whose allowance paid (0: the wallet, credited). */
  paidBy: number;
  /** The window counters it gave back: mirrored once the caller's transaction commits (Ledger.refunded). */
  moves: WindowMove[];
}

/** Runs a window operation (SQL steps only) in a caller's transaction instead of the writer's batch. */
async function runSql<T>(trx: Transaction<Database>, ops: Ops<T>): Promise<T> {
  let s = ops.next();
  while (!s.done) {
    const step = s.value;
    if (step.kind !== 'sql') throw new Error(`refund: unexpected ${step.kind} step`);
    s = ops.next(await execAsync(trx, step.q));
  }
  return s.value;
}

export async function refundOps(trx: Transaction<Database>, q: Statements, quotaLedger: QuotaLedger, r: RefundInput): Promise<RefundResult> {
  const req = r.requestId
    ? await trx.selectFrom('ledger_requests').select(['state', 'user_id', 'paid_by']).where('request_id', '=', r.requestId).executeTakeFirst()
    : undefined;
  // Only the user's own settled request speaks for where the money came from.
  const settled = !!req && Number(req.state) === SETTLED && Number(req.user_id) === r.userId;
  const paidBy = settled ? Number(req.paid_by ?? 0) : 0;
  // The usage counter goes back either way (settle counted the charge in used_quota, whoever paid); the token's limit stays spent.
  const result = await quotaLedger.move({ kind: 'refund', userId: r.userId, quota: paidBy ? 0 : r.quota, used: -r.quota, ref: r.ref }, trx);
  // Behind the claimed ref, so once: each window charge of the request goes to nothing, its counter by as much while its period runs.
  const moves = result === 'applied' && settled ? await runSql(trx, settleWindows(q, r.requestId, 0, 0)) : [];
  return { result, paidBy, moves };
}
