import type { AppContext } from '../../context.js';
import { taskAdapterFor } from '../../relay/adapters/task-registry.js';
import type { PollResult } from './mj-poller.js';
import { applyTaskUpdate, type TaskRow } from './task-store.js';

type Deps = Pick<AppContext, 'db' | 'relay' | 'quotaLedger'>;

const LOAD_LIMIT = 500;
const BATCH = 100;
const FETCH_TIMEOUT_MS = 15_000;
const MAX_SKIP = 32;
/** An async task the upstream has not finished in an hour is failed and refunded. */
const TIMEOUT_SEC = 60 * 60;

/**
 * The async-task poller (providers-china-and-tasks §9.3): open tasks (progress below 100 %) per
 * channel, one `POST /suno/fetch` per batch; a channel that cannot answer keeps its tasks pending
 * and is retried with a backoff.
 */
export class SunoPoller {
  private readonly backoff = new Map<number, { failures: number; skip: number }>();

  constructor(private readonly ctx: Deps) {}

  async runOnce(signal?: AbortSignal): Promise<PollResult> {
    const out: PollResult = { polled: 0, updated: 0, refunded: 0 };
    const rows = await this.ctx.db.db.selectFrom('tasks').selectAll().where('progress', '!=', '100%').orderBy('id').limit(LOAD_LIMIT).execute();
    if (!rows.length) return out;
    await this.ctx.relay.channels.ensure();
    const byChannel = new Map<number, TaskRow[]>();
    for (const r of rows) {
      if (!r.task_id) {
        this.count(out, await applyTaskUpdate(this.ctx, r, { status: 'FAILURE', fail_reason: r.fail_reason || 'no upstream task id' }));
        continue;
      }
      const list = byChannel.get(Number(r.channel_id));
      if (list) list.push(r);
      else byChannel.set(Number(r.channel_id), [r]);
    }
    for (const [channelId, list] of byChannel) {
      if (signal?.aborted) break;
      await this.pollChannel(channelId, list, out);
    }
    return out;
  }

  private count(out: PollResult, r: { changed: boolean; refunded: boolean }): void {
    if (r.changed) out.updated += 1;
    if (r.refunded) out.refunded += 1;
  }

  private async pollChannel(channelId: number, rows: TaskRow[], out: PollResult): Promise<void> {
    const ch = this.ctx.relay.channels.get(channelId);
    const adapter = ch ? taskAdapterFor(ch.type) : undefined;
    if (!ch || !adapter) {
      for (const r of rows) this.count(out, await applyTaskUpdate(this.ctx, r, { status: 'FAILURE', fail_reason: `channel #${channelId} no longer exists` }));
      return;
    }
    const b = this.backoff.get(channelId);
    if (b && b.skip > 0) {
      b.skip -= 1;
      return;
    }
    const nowSec = Math.floor(Date.now() / 1000);
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH);
      const items = await adapter.fetchMany(ch.target, batch.map((r) => r.task_id), FETCH_TIMEOUT_MS);
      if (!items) {
        const failures = (b?.failures ?? 0) + 1;
        this.backoff.set(channelId, { failures, skip: Math.min(MAX_SKIP, 2 ** (failures - 1)) });
        return;
      }
      this.backoff.delete(channelId);
      out.polled += batch.length;
      const byId = new Map<string, Record<string, unknown>>();
      for (const it of items) if (it && typeof it === 'object' && typeof (it as { task_id?: unknown }).task_id === 'string') byId.set((it as { task_id: string }).task_id, it as Record<string, unknown>);
      for (const r of batch) {
        const item = byId.get(r.task_id);
        if (item) this.count(out, await applyTaskUpdate(this.ctx, r, item));
        else if (nowSec - Number(r.submit_time) > TIMEOUT_SEC) this.count(out, await applyTaskUpdate(this.ctx, r, { status: 'FAILURE', fail_reason: 'upstream task timed out (over 1 hour)' }));
      }
    }
  }
}
