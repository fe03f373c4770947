import { RedemptionStatus } from '@modelgate/shared';
import type { Transaction } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';

/** A code row with the name of the user who redeemed it (empty while unused). */
export interface RedemptionRecord {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  used_user_id: number;
  used_username: string;
}

const COLUMNS = [
  'r.id',
  'r.user_id',
  'r.key',
  'r.status',
  'r.name',
  'r.quota',
  'r.created_time',
  'r.redeemed_time',
  'r.used_user_id',
] as const;

/** Redemption codes (admin) and the claim a redeem makes. */
export class RedemptionsRepository {
  constructor(private readonly handle: Db) {}

  private get db() {
    return this.handle.db;
  }

  private base() {
    return this.db
      .selectFrom('redemptions as r')
      .leftJoin('users as u', 'u.id', 'r.used_user_id')
      .where('r.deleted_at', 'is', null);
  }

  private static record(row: Record<string, unknown>): RedemptionRecord {
    return {
      id: Number(row.id),
      user_id: Number(row.user_id),
      key: String(row.key),
      status: Number(row.status),
      name: String(row.name ?? ''),
      quota: Number(row.quota),
      created_time: Number(row.created_time),
      redeemed_time: Number(row.redeemed_time),
      used_user_id: Number(row.used_user_id),
      used_username: row.used_username == null ? '' : String(row.used_username),
    };
  }

  /** Newest first; `keyword` is an id or a name prefix (the reference's search). */
  async search(f: { keyword?: string; offset: number; limit: number }): Promise<{ items: RedemptionRecord[]; total: number }> {
    let q = this.base();
    const keyword = f.keyword?.trim() ?? '';
    if (keyword) {
      const asId = /^\d{1,15}$/.test(keyword) ? Number(keyword) : null;
      q = q.where((eb) => (asId === null ? eb('r.name', 'like', `${keyword}%`) : eb.or([eb('r.id', '=', asId), eb('r.name', 'like', `${keyword}%`)])));
    }
    const [rows, count] = await Promise.all([
      q.select([...COLUMNS, 'u.username as used_username']).orderBy('r.id', 'desc').limit(f.limit).offset(f.offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map((r) => RedemptionsRepository.record(r)), total: Number(count.n) };
  }

  async get(id: number): Promise<RedemptionRecord | undefined> {
    const row = await this.base().select([...COLUMNS, 'u.username as used_username']).where('r.id', '=', id).executeTakeFirst();
    return row ? RedemptionsRepository.record(row) : undefined;
  }

  async insertMany(rows: Array<{ user_id: number; key: string; name: string; quota: number; created_time: number }>): Promise<void> {
    await this.db.transaction().execute(async (t) => {
      await t.insertInto('redemptions').values(rows.map((r) => ({ ...r, status: RedemptionStatus.Unused }))).execute();
    });
  }

  /** Name and quota of a code that is still unused (a redeem racing the edit wins or loses as a whole). */
  async updateUnused(id: number, patch: { name?: string; quota?: number }): Promise<boolean> {
    const r = await this.db
      .updateTable('redemptions')
      .set(patch)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .where('status', '=', RedemptionStatus.Unused)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Enables or disables a code that has not been used. */
  async setStatusUnlessUsed(id: number, status: number): Promise<boolean> {
    const r = await this.db
      .updateTable('redemptions')
      .set({ status })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .where('status', 'in', [RedemptionStatus.Unused, RedemptionStatus.Disabled])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async delete(id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('redemptions').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /** Deletes used and disabled codes; answers how many. */
  async deleteInvalid(): Promise<number> {
    const r = await this.db.deleteFrom('redemptions').where('status', '<>', RedemptionStatus.Unused).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** The code a user typed, inside the redeem's transaction. */
  findByKey(t: Transaction<Database>, key: string) {
    return t.selectFrom('redemptions').select(['id', 'key', 'status', 'name', 'quota']).where('key', '=', key).where('deleted_at', 'is', null).executeTakeFirst();
  }

  /**
   * The claim: one conditional update that only an unused code passes. Of any number of
   * concurrent redeems on any number of nodes, the database lets exactly one change the row. It is
   * the transaction's first statement, so on SQLite it waits for the write lock (busy timeout)
   * instead of failing on a stale read snapshot.
   */
  async claim(t: Transaction<Database>, key: string, userId: number, now: number): Promise<boolean> {
    const r = await t
      .updateTable('redemptions')
      .set({ status: RedemptionStatus.Used, used_user_id: userId, redeemed_time: now })
      .where('key', '=', key)
      .where('deleted_at', 'is', null)
      .where('status', '=', RedemptionStatus.Unused)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
}
