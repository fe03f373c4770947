import type { Db } from '../../db/client.js';
import { insertReturningId } from '../../db/client.js';
import type { NewToken, TokenRow } from '../../db/schema.js';

/** Token data access, always scoped to the owner: a key never reaches another user. */
export class TokensRepository {
  /** Called after a token row changes (the relay's token cache drops it). */
  onWrite?: (tokenId: number) => void;

  constructor(private readonly handle: Db) {}

  private get db() {
    return this.handle.db;
  }

  private owned(userId: number) {
    return this.db.selectFrom('tokens').where('user_id', '=', userId).where('deleted_at', 'is', null);
  }

  list(userId: number, offset: number, limit: number): Promise<TokenRow[]> {
    return this.owned(userId).selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
  }

  search(userId: number, keyword: string, key: string, limit = 100): Promise<TokenRow[]> {
    let q = this.owned(userId);
    if (keyword) q = q.where('name', 'like', `%${keyword}%`);
    if (key) q = q.where('key', 'like', `%${key}%`);
    return q.selectAll().orderBy('id', 'desc').limit(limit).execute();
  }

  get(userId: number, id: number): Promise<TokenRow | undefined> {
    return this.owned(userId).selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByKey(key: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').selectAll().where('key', '=', key).where('deleted_at', 'is', null).executeTakeFirst();
  }

  insert(token: NewToken): Promise<number> {
    return insertReturningId(this.handle.kind, this.db.insertInto('tokens').values(token));
  }

  async update(userId: number, id: number, patch: Partial<NewToken>): Promise<void> {
    await this.db.updateTable('tokens').set(patch).where('id', '=', id).where('user_id', '=', userId).execute();
    this.onWrite?.(id);
  }

  async softDelete(userId: number, id: number, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable('tokens')
      .set({ deleted_at: now })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    this.onWrite?.(id);
    return Number(res.numUpdatedRows) === 1;
  }
}
