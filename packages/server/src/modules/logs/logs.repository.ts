import { LogType } from '@modelgate/shared';
import { deleteOlderThan } from '../../db/batched-delete.js';
import { bucketQuota, logQuotaBucketsReady, splitWindow } from '../../db/log-quota-buckets.js';
import type { Db } from '../../db/client.js';
import type { LogRow } from '../../db/schema.js';

export interface LogFilter {
  userId?: number;
  type?: number;
  username?: string;
  tokenName?: string;
  modelName?: string;
  start?: number;
  end?: number;
  channel?: number;
  group?: string;
}

/**
 * The log list counts at most this many matching rows. A console page shows ten to a hundred rows,
 * and counting every row of a busy day on a ten-million-row table costs more than the page itself;
 * past the cap the total says "at least" (`total_capped`) and pages up to it still work, the way
 * large consoles page big result sets. Deeper rows are reached by narrowing the filter.
 */
export const LOG_COUNT_CAP = 10_000;

/** How far back the keyword search looks. */
const SEARCH_WINDOW_SEC = 30 * 86400;

/** Usage log queries (spec §7 Logs). Every filter maps onto an indexed column. */
export class LogsRepository {
  constructor(private readonly handle: Db) {}

  private filtered(f: LogFilter) {
    let q = this.handle.db.selectFrom('logs');
    if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
    if (f.type) q = q.where('type', '=', f.type);
    if (f.username) q = q.where('username', '=', f.username);
    if (f.tokenName) q = q.where('token_name', '=', f.tokenName);
    if (f.modelName) q = q.where('model_name', '=', f.modelName);
    if (f.start) q = q.where('created_at', '>=', f.start);
    if (f.end) q = q.where('created_at', '<=', f.end);
    if (f.channel) q = q.where('channel_id', '=', f.channel);
    if (f.group) q = q.where('group', '=', f.group);
    return q;
  }

  /**
   * One page of the list. Newest first, in the order of the time index (created_at, type, then the
   * row id that SQLite and MySQL keep in every index): the page is read off the index's end and
   * stops after `limit` rows. With a type filter the type is constant and the order is
   * (created_at, id), that of the (column, created_at) indexes. Ordering by id alone made the
   * database read and sort the whole window (MySQL has no partial sort, so the type term matters
   * there). The time window compares the bare column, so a partitioned table (db/log-partitions.ts)
   * is pruned to the partitions of the window.
   */
  pageQuery(f: LogFilter, offset: number, limit: number) {
    return this.filtered(f).selectAll().orderBy('created_at', 'desc').orderBy('type', 'desc').orderBy('id', 'desc').limit(limit).offset(offset);
  }

  async page(f: LogFilter, offset: number, limit: number): Promise<{ items: LogRow[]; total: number; capped: boolean }> {
    const [items, total] = await Promise.all([
      this.pageQuery(f, offset, limit).execute(),
      this.handle.db
        .selectFrom(this.filtered(f).select('id').limit(LOG_COUNT_CAP + 1).as('matching'))
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    const n = Number(total.n);
    return n > LOG_COUNT_CAP ? { items, total: LOG_COUNT_CAP, capped: true } : { items, total: n, capped: false };
  }

  /** The sum behind `stat`'s quota when it reads the log (its EXPLAIN is checked for partition pruning). */
  statQuery(f: LogFilter) {
    return this.filtered({ ...f, type: LogType.Consume }).select((eb) => eb.fn.sum<number>('quota').as('q'));
  }

  /** `{quota, rpm, tpm}`: quota over the filter, rpm / tpm over the last 60 seconds (consume rows). */
  async stat(f: LogFilter, now: number): Promise<{ quota: number; rpm: number; tpm: number }> {
    const consume = { ...f, type: LogType.Consume };
    const [quota, recent] = await Promise.all([
      this.statQuota(f, now),
      this.filtered({ ...consume, start: Math.max(f.start ?? 0, now - 60), end: undefined })
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>(eb('prompt_tokens', '+', eb.ref('completion_tokens'))).as('t')])
        .executeTakeFirstOrThrow(),
    ]);
    return { quota, rpm: Number(recent.n ?? 0), tpm: Number(recent.t ?? 0) };
  }

  /**
   * The stat's quota. A window of all users, or of one model, that holds whole hours sums those
   * from the hourly totals where the log database keeps them (db/log-quota-buckets.ts) and reads
   * only the partial hours at its two edges from the log; every other stat sums the log's rows.
   */
  private async statQuota(f: LogFilter, now: number): Promise<number> {
    const narrowed = f.userId !== undefined || f.username || f.tokenName || f.channel || f.group;
    const split = narrowed ? null : splitWindow(f.start || undefined, f.end || undefined, now);
    if (!split || !(await logQuotaBucketsReady(this.handle))) return Number((await this.statQuery(f).executeTakeFirstOrThrow()).q ?? 0);
    const edge = async (w?: { start: number; end?: number }) => (w ? Number((await this.statQuery({ ...f, ...w }).executeTakeFirstOrThrow()).q ?? 0) : 0);
    const parts = await Promise.all([bucketQuota(this.handle, split.from, split.to, f.modelName || undefined), edge(split.head), edge(split.tail)]);
    return parts.reduce((a, b) => a + b, 0);
  }

  /**
   * The reference's log search: the newest `limit` rows of the last 30 days whose type is the
   * keyword (a number), or whose content starts with it, or whose model, token name (or, for
   * admins, username) is it. The window keeps the scan on the created_at index.
   */
  search(keyword: string, opts: { userId?: number; now: number; limit?: number }): Promise<LogRow[]> {
    return this.searchQuery(keyword, opts).execute();
  }

  searchQuery(keyword: string, opts: { userId?: number; now: number; limit?: number }) {
    let q = this.handle.db.selectFrom('logs').where('created_at', '>=', opts.now - SEARCH_WINDOW_SEC);
    if (opts.userId !== undefined) q = q.where('user_id', '=', opts.userId);
    const kw = keyword.trim();
    if (kw) {
      // Like the token search: `%` and `_` in a keyword act as wildcards (no escape is portable to SQLite).
      const like = `${kw}%`;
      q = q.where((eb) =>
        eb.or([
          ...(/^\d{1,9}$/.test(kw) ? [eb('type', '=', Number(kw))] : []),
          eb('content', 'like', like),
          eb('model_name', '=', kw),
          eb('token_name', '=', kw),
          ...(opts.userId === undefined ? [eb('username', '=', kw)] : []),
        ]),
      );
    }
    return q.selectAll().orderBy('id', 'desc').limit(opts.limit ?? 100);
  }

  /** A token's own rows, newest first (`GET /api/log/token`): through the owner's (user_id, created_at) index. */
  byToken(userId: number, tokenId: number, limit = 100): Promise<LogRow[]> {
    return this.handle.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('token_id', '=', tokenId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** The console's clear action: batched like the retention job (db/batched-delete.ts). */
  deleteBefore(ts: number): Promise<number> {
    return deleteOlderThan(this.handle, 'logs', ts);
  }
}
