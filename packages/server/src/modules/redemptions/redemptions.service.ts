import { formatQuota, LogType, quotaLogText, RedemptionStatus } from '@modelgate/shared';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { nowSec } from '../../http/reply.js';
import type { QuotaLedger } from '../../ledger/quota-ledger.js';
import { retryTransient } from '../../ledger/retry.js';
import { recordLog } from '../logs/log-writer.js';
import type { OptionsService } from '../options/options.service.js';
import type { RedemptionRecord, RedemptionsRepository } from './redemptions.repository.js';

/** Spec §5 and §9: a name of 1–20 characters, at most 100 codes per batch. */
export const REDEMPTION_NAME_MAX = 20;
export const REDEMPTION_BATCH_MAX = 100;

/** 16 random bytes as 32 hex characters: 128 bits, the width of the `key` column. */
export function newRedemptionKey(): string {
  return randomBytes(16).toString('hex');
}

export interface RedemptionsServiceDeps {
  db: Db;
  redemptions: RedemptionsRepository;
  options: OptionsService;
  quotaLedger: QuotaLedger;
}

export class RedemptionsService {
  constructor(private readonly deps: RedemptionsServiceDeps) {}

  private display() {
    const o = this.deps.options;
    return { quotaPerUnit: o.num('QuotaPerUnit'), displayInCurrency: o.bool('DisplayInCurrencyEnabled') };
  }

  private checkQuota(quota: number | undefined): number {
    if (quota === undefined || !Number.isSafeInteger(quota) || quota <= 0) throw new AppError('REDEMPTION_QUOTA_INVALID');
    return quota;
  }

  private checkName(name: string): string {
    const n = [...name].length;
    if (n < 1 || n > REDEMPTION_NAME_MAX) throw new AppError('REDEMPTION_NAME_LENGTH');
    return name;
  }

  /** Creates `count` codes; an empty name becomes the quota as the console shows it. */
  async create(adminId: number, body: { name?: string; quota?: number; count?: number }): Promise<string[]> {
    const quota = this.checkQuota(body.quota);
    const count = body.count ?? 1;
    if (!Number.isInteger(count) || count < 1 || count > REDEMPTION_BATCH_MAX) throw new AppError('REDEMPTION_COUNT_INVALID');
    const name = this.checkName(body.name?.trim() || formatQuota(quota, this.display()));
    const now = nowSec();
    const keys = Array.from({ length: count }, newRedemptionKey);
    await this.deps.redemptions.insertMany(keys.map((key) => ({ user_id: adminId, key, name, quota, created_time: now })));
    return keys;
  }

  async get(id: number): Promise<RedemptionRecord> {
    const row = await this.deps.redemptions.get(id);
    if (!row) throw new AppError('REDEMPTION_NOT_FOUND');
    return row;
  }

  /** `statusOnly`: enable (1) or disable (2) a code that was never used; else edit an unused code's name and quota. */
  async update(body: { id: number; name?: string; quota?: number; status?: number }, statusOnly: boolean): Promise<RedemptionRecord> {
    const row = await this.get(body.id);
    const repo = this.deps.redemptions;
    if (statusOnly) {
      if (body.status !== RedemptionStatus.Unused && body.status !== RedemptionStatus.Disabled) throw new AppError('REDEMPTION_STATUS_INVALID');
      if (row.status === RedemptionStatus.Used || !(await repo.setStatusUnlessUsed(row.id, body.status))) throw new AppError('REDEMPTION_USED_LOCKED');
    } else {
      if (row.status !== RedemptionStatus.Unused) throw new AppError('REDEMPTION_EDIT_UNUSED_ONLY');
      const patch: { name?: string; quota?: number } = {};
      if (body.name !== undefined) patch.name = this.checkName(body.name.trim());
      if (body.quota !== undefined) patch.quota = this.checkQuota(body.quota);
      // Conditional on "still unused": a redeem that won the race keeps what it redeemed.
      if (Object.keys(patch).length && !(await repo.updateUnused(row.id, patch))) throw new AppError('REDEMPTION_EDIT_UNUSED_ONLY');
    }
    return this.get(row.id);
  }

  async delete(id: number): Promise<void> {
    if (!(await this.deps.redemptions.delete(id))) throw new AppError('REDEMPTION_NOT_FOUND');
  }

  deleteInvalid(): Promise<number> {
    return this.deps.redemptions.deleteInvalid();
  }

  /**
   * Redeems a code for `user` (spec §7 `POST /api/user/topup`): in one transaction, the claim (one
   * conditional update of the code row), the credit through the ledger (kind `redemption`, the key
   * as its unique reference) and the top-up log row. Answers the quota added.
   */
  async redeem(user: { id: number; username: string }, rawKey: string | undefined): Promise<number> {
    const key = rawKey?.trim() ?? '';
    if (!key) throw new AppError('REDEMPTION_KEY_REQUIRED');
    if (key.length > 64) throw new AppError('REDEMPTION_INVALID');
    const { db, redemptions, quotaLedger } = this.deps;
    return retryTransient(() =>
      db.db.transaction().execute(async (t) => {
        const claimed = await redemptions.claim(t, key, user.id, nowSec());
        const row = await redemptions.findByKey(t, key);
        if (!row) throw new AppError('REDEMPTION_INVALID');
        if (!claimed) throw new AppError(row.status === RedemptionStatus.Disabled ? 'REDEMPTION_DISABLED' : 'REDEMPTION_USED');
        const quota = Number(row.quota);
        const moved = await quotaLedger.move({ kind: 'redemption', userId: user.id, quota, ref: row.key }, t);
        // Only the claim's winner gets here; anything but a credit means the records disagree: roll back.
        if (moved !== 'applied') throw new Error(`redemption ${row.id}: the ledger answered ${moved}`);
        const content = `通过兑换码充值 ${quotaLogText(quota, this.display())}，兑换码名称：${row.name}`;
        await recordLog(db, { userId: user.id, username: user.username, type: LogType.Topup, content, quota }, t);
        return quota;
      }),
    );
  }
}
