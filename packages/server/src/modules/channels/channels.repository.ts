import { ChannelStatus } from '@modelgate/shared';
import { sql, type Transaction } from 'kysely';
import { CHANNEL_KEY_PURPOSE, SecretUnreadableError, type SecretBox } from '../../crypto/secret-box.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { insertReturningId } from '../../db/client.js';
import type { ChannelRow, Database } from '../../db/schema.js';

export type ChannelWrite = Partial<Omit<ChannelRow, 'id'>>;

export interface ChannelQuery {
  keyword?: string;
  group?: string;
  model?: string;
  idSort: boolean;
  offset?: number;
  limit?: number;
}

function splitList(v: string | null | undefined): string[] {
  return [...new Set((v ?? '').split(',').map((s) => s.trim()).filter(Boolean))];
}

/**
 * Channels and their abilities (group × model rows used for selection). Every write to a channel
 * rewrites its abilities in the same transaction (reference §6.3), so selection never sees a
 * channel without its rows or rows of a deleted channel.
 *
 * Keys are sealed on every write (crypto/secret-box.ts) and rows are read with the key still
 * sealed: lists and the edit form never need it. Whatever sends a key upstream opens it with
 * `open` / `getOpened`.
 */
export class ChannelsRepository {
  /** Called after any channel write (the relay reloads its selection index). */
  onWrite?: () => void;

  constructor(
    private readonly handle: Db,
    private readonly secrets: SecretBox,
  ) {}

  private sealKey<T extends { key?: string }>(w: T): T {
    return w.key === undefined ? w : { ...w, key: this.secrets.sealIfPlain(CHANNEL_KEY_PURPOSE, w.key) };
  }

  /** The row with its key opened; a key that does not open is a clear error naming the channel. */
  open(row: ChannelRow): ChannelRow {
    try {
      return { ...row, key: this.secrets.open(CHANNEL_KEY_PURPOSE, row.key) };
    } catch (e) {
      if (e instanceof SecretUnreadableError) throw new AppError('CHANNEL_KEY_UNREADABLE', 200, `#${row.id}: ${e.message}`);
      throw e;
    }
  }

  async getOpened(id: number): Promise<ChannelRow | undefined> {
    const row = await this.get(id);
    return row && this.open(row);
  }

  /** Ids of channels whose key is exactly `key` (the search box takes a key, as the reference's did). */
  private async idsWithKey(key: string): Promise<number[]> {
    const rows = await this.db.selectFrom('channels').select(['id', 'key']).execute();
    const ids: number[] = [];
    for (const r of rows) {
      try {
        if (this.secrets.open(CHANNEL_KEY_PURPOSE, r.key) === key) ids.push(Number(r.id));
      } catch (e) {
        if (!(e instanceof SecretUnreadableError)) throw e;
      }
    }
    return ids;
  }

  private get db() {
    return this.handle.db;
  }

  private async writeAbilities(trx: Transaction<Database>, c: Pick<ChannelRow, 'id' | 'group' | 'models' | 'status' | 'priority' | 'weight' | 'tag'>): Promise<void> {
    await trx.deleteFrom('abilities').where('channel_id', '=', c.id).execute();
    const groups = splitList(c.group);
    const models = splitList(c.models);
    const rows = groups.flatMap((group) =>
      models.map((model) => ({
        group,
        model,
        channel_id: c.id,
        enabled: Number(c.status) === ChannelStatus.Enabled ? 1 : 0,
        priority: Number(c.priority),
        weight: Number(c.weight),
        tag: c.tag ?? null,
      })),
    );
    // Chunks keep each statement under every dialect's parameter limit.
    for (let i = 0; i < rows.length; i += 50) await trx.insertInto('abilities').values(rows.slice(i, i + 50)).execute();
  }

  async insertMany(channels: Array<Omit<ChannelWrite, 'key'> & { key: string }>): Promise<number[]> {
    const ids: number[] = [];
    await this.db.transaction().execute(async (trx) => {
      for (const c of channels) {
        const id = await insertReturningId(this.handle.kind, trx.insertInto('channels').values(this.sealKey(c)));
        const row = await trx.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        await this.writeAbilities(trx, row);
        ids.push(id);
      }
    });
    this.onWrite?.();
    return ids;
  }

  /**
   * Applies `patch` and rebuilds the abilities; returns the row after the write. With
   * `onlyIfStatus`, nothing happens (undefined) unless the stored status still is that one: a
   * background job acting on a row it read earlier must not undo an admin's change made meanwhile.
   */
  async update(id: number, patch: ChannelWrite, onlyIfStatus?: number): Promise<ChannelRow | undefined> {
    const row = await this.db.transaction().execute(async (trx) => {
      if (Object.keys(patch).length) {
        let q = trx.updateTable('channels').set(this.sealKey(patch)).where('id', '=', id);
        if (onlyIfStatus !== undefined) q = q.where('status', '=', onlyIfStatus);
        const res = await q.executeTakeFirst();
        if (onlyIfStatus !== undefined && Number(res.numUpdatedRows) === 0) return undefined;
      }
      const after = await trx.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
      if (after) await this.writeAbilities(trx, after);
      return after;
    });
    this.onWrite?.();
    return row;
  }

  async remove(id: number): Promise<boolean> {
    const removed = await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('abilities').where('channel_id', '=', id).execute();
      const res = await trx.deleteFrom('channels').where('id', '=', id).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
    this.onWrite?.();
    return removed;
  }

  /** Deletes channels and their abilities in one transaction (unlike the reference, no orphans). */
  async removeMany(ids: number[]): Promise<number> {
    if (!ids.length) return 0;
    const n = await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('abilities').where('channel_id', 'in', ids).execute();
      const res = await trx.deleteFrom('channels').where('id', 'in', ids).executeTakeFirst();
      return Number(res.numDeletedRows);
    });
    this.onWrite?.();
    return n;
  }

  async idsWhere(filter: { tag?: string; statuses?: number[] }): Promise<number[]> {
    let q = this.db.selectFrom('channels').select('id');
    if (filter.tag !== undefined) q = q.where('tag', '=', filter.tag);
    if (filter.statuses) q = q.where('status', 'in', filter.statuses);
    return (await q.execute()).map((r) => Number(r.id));
  }

  /** Applies one patch to many channels and rebuilds their abilities, in one transaction. */
  async updateMany(ids: number[], patch: ChannelWrite): Promise<number> {
    if (!ids.length) return 0;
    await this.db.transaction().execute(async (trx) => {
      if (Object.keys(patch).length) await trx.updateTable('channels').set(this.sealKey(patch)).where('id', 'in', ids).execute();
      const rows = await trx.selectFrom('channels').selectAll().where('id', 'in', ids).execute();
      for (const row of rows) await this.writeAbilities(trx, row);
    });
    this.onWrite?.();
    return ids.length;
  }

  /** Removes abilities of missing channels and rebuilds every channel's rows; returns the channel count. */
  async fix(): Promise<number> {
    const n = await this.db.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom('channels').selectAll().execute();
      const ids = rows.map((r) => Number(r.id));
      let orphans = trx.deleteFrom('abilities');
      if (ids.length) orphans = orphans.where('channel_id', 'not in', ids);
      await orphans.execute();
      for (const row of rows) await this.writeAbilities(trx, row);
      return rows.length;
    });
    this.onWrite?.();
    return n;
  }

  /** Test and balance results: columns the relay does not select on, so no ability rebuild. */
  async setStats(id: number, patch: Pick<ChannelWrite, 'response_time' | 'test_time' | 'balance' | 'balance_updated_time'>): Promise<void> {
    await this.db.updateTable('channels').set(patch).where('id', '=', id).execute();
  }

  get(id: number): Promise<ChannelRow | undefined> {
    return this.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** `keyIds`: channels whose key is the keyword (keys are sealed, so SQL cannot compare them). */
  private filtered(q: ChannelQuery, keyIds: number[] = []) {
    let base = this.db.selectFrom('channels');
    const kw = q.keyword?.trim();
    if (kw) {
      base = base.where((eb) => {
        const ors = [eb('name', 'like', `%${kw}%`)];
        if (keyIds.length) ors.push(eb('id', 'in', keyIds));
        if (/^\d+$/.test(kw)) ors.push(eb('id', '=', Number(kw)));
        return eb.or(ors);
      });
    }
    if (q.model?.trim()) base = base.where('models', 'like', `%${q.model.trim()}%`);
    const g = q.group?.trim();
    if (g) {
      // Exact member of the comma list: ',' || group || ',' LIKE '%,g,%' (reference §6.4).
      base = base.where(sql<boolean>`${this.concatGroup()} like ${`%,${g},%`}`);
    }
    return base;
  }

  private concatGroup() {
    return this.handle.kind === 'mysql' ? sql`concat(',', ${sql.ref('group')}, ',')` : sql`(',' || ${sql.ref('group')} || ',')`;
  }

  private keyIdsFor(q: ChannelQuery): Promise<number[]> {
    const kw = q.keyword?.trim();
    return kw ? this.idsWithKey(kw) : Promise.resolve([]);
  }

  async list(q: ChannelQuery): Promise<ChannelRow[]> {
    let query = this.filtered(q, await this.keyIdsFor(q)).selectAll();
    query = q.idSort ? query.orderBy('id', 'desc') : query.orderBy('priority', 'desc').orderBy('id', 'desc');
    if (q.limit !== undefined) query = query.limit(q.limit).offset(q.offset ?? 0);
    return query.execute();
  }

  /** Tag mode: a page of distinct non-empty tags, and every channel carrying one of them. */
  async listByTags(q: ChannelQuery): Promise<ChannelRow[]> {
    let tagsQ = this.filtered(q, await this.keyIdsFor(q)).select('tag').distinct().where('tag', 'is not', null).where('tag', '!=', '').orderBy('tag');
    if (q.limit !== undefined) tagsQ = tagsQ.limit(q.limit).offset(q.offset ?? 0);
    const tags = (await tagsQ.execute()).map((r) => r.tag!).filter(Boolean);
    if (!tags.length) return [];
    let query = this.db.selectFrom('channels').selectAll().where('tag', 'in', tags);
    query = q.idSort ? query.orderBy('id', 'desc') : query.orderBy('priority', 'desc').orderBy('id', 'desc');
    return query.execute();
  }
}
