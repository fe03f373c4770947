import { LogType } from '@modelgate/shared';
import type { Db } from '../../db/client.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { QuotaLedger } from '../../ledger/quota-ledger.js';
import type { WindowMove } from '../../ledger/window-ops.js';
import { recordLog } from '../../modules/logs/log-writer.js';
import type { TaskAdapter } from '../adapters/task-types.js';

export interface SettleDeps {
  db: Db;
  quotaLedger: QuotaLedger;
  relay: { ledger: Ledger };
}

export interface Applied {
  changed: boolean;
  refunded: boolean;
}

const UNCHANGED: Applied = { changed: false, refunded: false };

/**
 * Applies an upstream's word about one task. The row moves only while the task is still open (a
 * conditional update) and a failure's refund goes through the ledger in the same transaction, with
 * `<kind ref>:<row id>` as its unique ref: however many pollers, notifications or nodes see the
 * same failure, the row moves once and the user is refunded once — to the wallet, or to the plan
 * that paid, and to the windows the submit was counted in (ledger/refund-ops.ts).
 */
export async function applyTaskItem<Row, Patch>(ctx: SettleDeps, kind: TaskAdapter<Row, Patch>, row: Row, item: Record<string, unknown>): Promise<Applied> {
  const step = kind.step(row, item);
  if (!step) return UNCHANGED;
  const ref = kind.store.ref(row);
  let moves: WindowMove[] = [];
  const applied = await ctx.db.db.transaction().execute(async (trx): Promise<Applied> => {
    if (!(await kind.store.writeIfOpen(trx, row, step.patch))) return UNCHANGED;
    if (step.state !== 'failure' || ref.quota <= 0) return { changed: true, refunded: false };
    const refund = { requestId: ref.requestId, userId: ref.userId, quota: ref.quota, ref: `${kind.refund.ref}:${ref.id}` };
    const moved = await ctx.relay.ledger.refund(trx, ctx.quotaLedger, refund);
    if (moved.result !== 'applied') return { changed: true, refunded: false };
    moves = moved.moves;
    await recordLog(ctx.db, { userId: ref.userId, type: LogType.System, content: kind.refund.log(ref.label ?? ref.upstreamId, ref.quota), quota: ref.quota }, trx);
    return { changed: true, refunded: true };
  });
  ctx.relay.ledger.refunded(moves);
  return applied;
}

/** Fails a task the framework gives up on (timed out, its channel gone, never accepted), with the refund. */
export function failTask<Row, Patch>(ctx: SettleDeps, kind: TaskAdapter<Row, Patch>, row: Row, reason: string): Promise<Applied> {
  return applyTaskItem(ctx, kind, row, kind.failure(reason));
}
