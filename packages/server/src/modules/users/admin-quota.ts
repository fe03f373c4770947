import { LogType, quotaLogText } from '@modelgate/shared';
import type { Db } from '../../db/client.js';
import type { UserRow } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { QuotaLedger } from '../../ledger/quota-ledger.js';
import { retryTransient } from '../../ledger/retry.js';
import { recordLog } from '../logs/log-writer.js';
import type { OptionsService } from '../options/options.service.js';

export interface AdminQuotaDeps {
  db: Db;
  quotaLedger: QuotaLedger;
  options: OptionsService;
}

/** What an admin's user edit asks of the balance: `add_quota` (a delta, negative allowed) wins over `quota`. */
export interface QuotaChange {
  quota?: number;
  add_quota?: number;
}

/**
 * An admin's change to a user's balance (spec §6): through the ledger (kind `admin`, the admin as
 * actor) and, in the same transaction, a manage log row naming the admin and the change. The
 * balance is read under a row lock, so a charge settling meanwhile is neither lost nor overwritten.
 * Does nothing when nothing changes.
 */
export async function changeUserQuota(deps: AdminQuotaDeps, admin: { id: number; username: string }, target: UserRow, change: QuotaChange): Promise<void> {
  const add = change.add_quota ?? 0;
  if (add === 0 && (change.quota === undefined || change.quota === Number(target.quota))) return;
  if (add === 0 && change.quota! < 0) throw new AppError('QUOTA_NEGATIVE');
  const o = deps.options;
  const fmt = (q: number) => quotaLogText(q, { quotaPerUnit: o.num('QuotaPerUnit'), displayInCurrency: o.bool('DisplayInCurrencyEnabled') });
  await retryTransient(() =>
    deps.db.db.transaction().execute(async (t) => {
      let before: number;
      let after: number;
      let content: string;
      if (add !== 0) {
        const r = await deps.quotaLedger.addUserQuota(target.id, add, admin.id, t);
        // Throwing rolls the whole transaction back (a refused movement may have left its entry row).
        if (!r) throw new AppError('QUOTA_NEGATIVE');
        ({ before, after } = r);
        const verb = add > 0 ? '增加' : '减少';
        content = `管理员 ${admin.username} 为用户${verb}额度 ${fmt(Math.abs(add))}，从 ${fmt(before)}修改为 ${fmt(after)}`;
      } else {
        after = change.quota!;
        before = await deps.quotaLedger.setUserQuota(target.id, after, admin.id, t);
        content = `管理员 ${admin.username} 将用户额度从 ${fmt(before)}修改为 ${fmt(after)}`;
      }
      if (before !== after) await recordLog(deps.db, { userId: target.id, username: target.username, type: LogType.Manage, content }, t);
    }),
  );
}
