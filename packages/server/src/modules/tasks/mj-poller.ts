import type { AppContext } from '../../context.js';
import { taskAdapterFor } from '../../relay/adapters/task-registry.js';
import { applyMjUpdate, failMj, MJ_TIMEOUT_MS, MJ_TIMEOUT_REASON, type MjRow } from './mj-store.js';

type Deps = Pick<AppContext, 'db' | 'relay' | 'quotaLedger'>;

/** Tasks read per run, and ids per list-by-condition call. */
const LOAD_LIMIT = 500;
const BATCH = 100;
const FETCH_TIMEOUT_MS = 15_000;
/** A channel that failed is skipped for 2^failures runs, at most this many. */
const MAX_SKIP = 32;

export interface PollResult {
  polled: number;
  updated: number;
  refunded: number;
}

/**
 * The drawing-task poller (providers-china-and-tasks §8.4): every open task (progress below 100 %)
 * is asked for in batches of `list-by-condition` per channel; what changed is applied (mj-store.ts,
 * which refunds a failure exactly once). An upstream that cannot answer leaves its tasks pending
 * and is retried with a backoff; only an hour without an answer fails a task. The job runs under a
 * lock (tasks-poll.job.ts), so one node polls at a time.
 */
export class MjPoller {
  private readonly backoff = new Map<number, { failures: number; skip: number }>();

  constructor(private readonly ctx: Deps) {}

  async runOnce(signal?: AbortSignal): Promise<PollResult> {
    const out: PollResult = { polled: 0, updated: 0, refunded: 0 };
    const rows = await this.ctx.db.db.selectFrom('midjourneys').selectAll().where('progress', '!=', '100%').orderBy('id').limit(LOAD_LIMIT).execute();
    if (!rows.length) return out;
    await this.ctx.relay.channels.ensure();
    const byChannel = new Map<number, MjRow[]>();
    for (const r of rows) {
      if (!r.mj_id) {
        // Never reached the upstream: nothing to ask for (and nothing was charged).
        this.count(out, await failMj(this.ctx, r, r.fail_reason || 'no upstream task id'));
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

  private async pollChannel(channelId: number, rows: MjRow[], out: PollResult): Promise<void> {
    const ch = this.ctx.relay.channels.get(channelId);
    const adapter = ch ? taskAdapterFor(ch.type) : undefined;
    if (!ch || !adapter) {
      for (const r of rows) this.count(out, await failMj(this.ctx, r, `channel #${channelId} no longer exists`));
      return;
    }
    const b = this.backoff.get(channelId);
    if (b && b.skip > 0) {
      b.skip -= 1;
      return;
    }
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH);
      const items = await adapter.fetchMany(ch.target, batch.map((r) => r.mj_id), FETCH_TIMEOUT_MS);
      if (!items) {
        const failures = (b?.failures ?? 0) + 1;
        this.backoff.set(channelId, { failures, skip: Math.min(MAX_SKIP, 2 ** (failures - 1)) });
        // Still pending; only a task the upstream has not finished within an hour is given up.
        for (const r of batch) if (Date.now() - Number(r.submit_time) > MJ_TIMEOUT_MS) this.count(out, await failMj(this.ctx, r, MJ_TIMEOUT_REASON));
        return;
      }
      this.backoff.delete(channelId);
      out.polled += batch.length;
      const byId = new Map<string, Record<string, unknown>>();
      // Only the ids asked for are read: anything else in the answer is ignored.
      for (const it of items) if (it && typeof it === 'object' && typeof (it as { id?: unknown }).id === 'string') byId.set((it as { id: string }).id, it as Record<string, unknown>);
      for (const r of batch) {
        const item = byId.get(r.mj_id);
        const late = Date.now() - Number(r.submit_time) > MJ_TIMEOUT_MS;
        if (item && !(late && item.status !== 'SUCCESS' && item.status !== 'FAILURE')) this.count(out, await applyMjUpdate(this.ctx, r, item));
        else if (late) this.count(out, await failMj(this.ctx, r, MJ_TIMEOUT_REASON));
      }
    }
  }
}
