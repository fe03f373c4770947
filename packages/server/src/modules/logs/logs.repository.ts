import { LogType } from '@modelgate/shared';
import { deleteOlderThan } from '../../db/batched-delete.js';
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

  async page(f: LogFilter, offset: number, limit: number): Promise<{ items: LogRow[]; total: number }> {
    const [items, total] = await Promise.all([
      this.filtered(f).selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      this.filtered(f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(total.n) };
  }

  /** `{quota, rpm, tpm}`: quota over the filter, rpm / tpm over the last 60 seconds (consume rows). */
  async stat(f: LogFilter, now: number): Promise<{ quota: number; rpm: number; tpm: number }> {
    const consume = { ...f, type: LogType.Consume };
    const [sum, recent] = await Promise.all([
      this.filtered(consume).select((eb) => eb.fn.sum<number>('quota').as('q')).executeTakeFirstOrThrow(),
      this.filtered({ ...consume, start: Math.max(f.start ?? 0, now - 60), end: undefined })
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>(eb('prompt_tokens', '+', eb.ref('completion_tokens'))).as('t')])
        .executeTakeFirstOrThrow(),
    ]);
    return { quota: Number(sum.q ?? 0), rpm: Number(recent.n ?? 0), tpm: Number(recent.t ?? 0) };
  }

  /** The console's clear action: batched like the retention job (db/batched-delete.ts). */
  deleteBefore(ts: number): Promise<number> {
    return deleteOlderThan(this.handle, 'logs', ts);
  }
}
