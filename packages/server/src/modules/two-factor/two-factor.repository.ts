import type { Db } from '../../db/client.js';

export interface TwoFactorRecord {
  userId: number;
  /** As stored: sealed. */
  secret: string;
  enabled: boolean;
  lastStep: number;
}

/** The `two_factor` and `two_factor_backup_codes` tables (migration 0019). */
export class TwoFactorRepository {
  constructor(private readonly handle: Db) {}

  private get db() {
    return this.handle.db;
  }

  async find(userId: number): Promise<TwoFactorRecord | undefined> {
    const r = await this.db.selectFrom('two_factor').select(['user_id', 'secret', 'enabled', 'last_step']).where('user_id', '=', userId).executeTakeFirst();
    return r && { userId: Number(r.user_id), secret: r.secret, enabled: Number(r.enabled) === 1, lastStep: Number(r.last_step) };
  }

  /** Of these users, those with TOTP on (one query). */
  async enabledAmong(userIds: readonly number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.db.selectFrom('two_factor').select('user_id').where('user_id', 'in', [...userIds]).where('enabled', '=', 1).execute();
    return new Set(rows.map((r) => Number(r.user_id)));
  }

  async isEnabled(userId: number): Promise<boolean> {
    const r = await this.db.selectFrom('two_factor').select('enabled').where('user_id', '=', userId).executeTakeFirst();
    return Number(r?.enabled ?? 0) === 1;
  }

  /**
   * A new pending enrolment (replacing an earlier pending one). Returns false when the user has a
   * second factor on already: the row is only replaced while `enabled` is 0.
   */
  async startEnrolment(userId: number, sealedSecret: string, now: number): Promise<boolean> {
    await this.db.deleteFrom('two_factor').where('user_id', '=', userId).where('enabled', '=', 0).execute();
    try {
      await this.db.insertInto('two_factor').values({ user_id: userId, secret: sealedSecret, enabled: 0, last_step: 0, created_at: now }).execute();
      return true;
    } catch (e) {
      // The row that stayed is an enabled one (or a concurrent setup won): either way not this one.
      if (await this.isEnabled(userId)) return false;
      throw e;
    }
  }

  /**
   * Records `step` as the last accepted one if it is later than the stored one: true for the one
   * request that did. Two requests with the same code race here, and only one wins.
   */
  async takeStep(userId: number, step: number, enabled: boolean): Promise<boolean> {
    const r = await this.db
      .updateTable('two_factor')
      .set({ last_step: step })
      .where('user_id', '=', userId)
      .where('enabled', '=', enabled ? 1 : 0)
      .where('last_step', '<', step)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Turns a confirmed enrolment on, with its backup codes (hashes), in one transaction. */
  async enable(userId: number, codeHashes: readonly string[], now: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.updateTable('two_factor').set({ enabled: 1, enabled_at: now }).where('user_id', '=', userId).where('enabled', '=', 0).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await tx.deleteFrom('two_factor_backup_codes').where('user_id', '=', userId).execute();
      await tx
        .insertInto('two_factor_backup_codes')
        .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: 0 })))
        .execute();
      return true;
    });
  }

  async replaceBackupCodes(userId: number, codeHashes: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('two_factor_backup_codes').where('user_id', '=', userId).execute();
      await tx
        .insertInto('two_factor_backup_codes')
        .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: 0 })))
        .execute();
    });
  }

  /** Spends an unused backup code: true for the one request whose update marked it used. */
  async spendBackupCode(userId: number, codeHash: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('two_factor_backup_codes')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('used_at', '=', 0)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async unusedBackupCodes(userId: number): Promise<number> {
    const r = await this.db
      .selectFrom('two_factor_backup_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('used_at', '=', 0)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Removes the second factor and its backup codes; true when there was one on. */
  async remove(userId: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.deleteFrom('two_factor').where('user_id', '=', userId).executeTakeFirst();
      await tx.deleteFrom('two_factor_backup_codes').where('user_id', '=', userId).execute();
      return Number(r.numDeletedRows) > 0;
    });
  }
}
