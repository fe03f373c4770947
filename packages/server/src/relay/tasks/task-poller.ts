import type { Scheduler } from '../../jobs/scheduler.js';
import type { TaskAdapter } from '../adapters/task-types.js';
import type { RuntimeChannel } from '../channel-cache.js';
import { applyTaskItem, failTask, type Applied, type SettleDeps } from './task-settle.js';

export interface PollDeps extends SettleDeps {
  relay: SettleDeps['relay'] & { channels: { ensure(): Promise<void> | undefined; get(id: number): RuntimeChannel | undefined } };
}

export interface PollResult {
  polled: number;
  updated: number;
  refunded: number;
}

/** Tasks read per run, and ids per upstream call. */
const LOAD_LIMIT = 500;
const BATCH = 100;
const FETCH_TIMEOUT_MS = 15_000;
/** A channel that failed is skipped for 2^failures runs, at most this many. */
const MAX_SKIP = 32;

/**
 * One poller per task kind (providers-china-and-tasks §8.4, §9.3): every open task is asked for,
 * in batches per channel, and what changed is settled (task-settle.ts: a failure refunds once).
 * An upstream that cannot answer leaves its tasks pending and is retried with a backoff; only a
 * task past the kind's timeout is given up. Runs under the kind's job lock (schedulePolls), so one
 * node polls a kind at a time; settling stays exactly-once even if two runs overlap.
 */
export class TaskPoller<Row = unknown, Patch = unknown> {
  private readonly backoff = new Map<number, { failures: number; skip: number }>();

  constructor(
    private readonly ctx: PollDeps,
    readonly kind: TaskAdapter<Row, Patch>,
  ) {}

  async runOnce(signal?: AbortSignal): Promise<PollResult> {
    const out: PollResult = { polled: 0, updated: 0, refunded: 0 };
    const { kind } = this;
    const rows = await kind.store.loadOpen(this.ctx.db, LOAD_LIMIT);
    if (!rows.length) return out;
    await this.ctx.relay.channels.ensure();
    const byChannel = new Map<number, Row[]>();
    for (const r of rows) {
      const ref = kind.store.ref(r);
      // Never reached the upstream: nothing to ask for (and nothing was charged).
      if (!ref.upstreamId) this.count(out, await failTask(this.ctx, kind, r, ref.failReason || 'no upstream task id'));
      else {
        const list = byChannel.get(ref.channelId);
        if (list) list.push(r);
        else byChannel.set(ref.channelId, [r]);
      }
    }
    for (const [channelId, list] of byChannel) {
      if (signal?.aborted) break;
      await this.pollChannel(channelId, list, out);
    }
    return out;
  }

  private count(out: PollResult, r: Applied): void {
    if (r.changed) out.updated += 1;
    if (r.refunded) out.refunded += 1;
  }

  private late(row: Row): boolean {
    return Date.now() - this.kind.store.ref(row).submittedAtMs > this.kind.timeout.ms;
  }

  private async pollChannel(channelId: number, rows: Row[], out: PollResult): Promise<void> {
    const { kind, ctx } = this;
    const ch = ctx.relay.channels.get(channelId);
    if (!ch || !kind.types.includes(ch.type)) {
      for (const r of rows) this.count(out, await failTask(ctx, kind, r, `channel #${channelId} no longer exists`));
      return;
    }
    const b = this.backoff.get(channelId);
    if (b && b.skip > 0) {
      b.skip -= 1;
      return;
    }
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH);
      const items = await kind.fetchMany(ch.target, batch.map((r) => kind.store.ref(r).upstreamId), FETCH_TIMEOUT_MS).catch(() => null);
      if (!items) {
        const failures = (b?.failures ?? 0) + 1;
        this.backoff.set(channelId, { failures, skip: Math.min(MAX_SKIP, 2 ** (failures - 1)) });
        // Still pending; only a task the upstream has not finished within the timeout is given up.
        for (const r of batch) if (this.late(r)) this.count(out, await failTask(ctx, kind, r, kind.timeout.reason));
        return;
      }
      this.backoff.delete(channelId);
      out.polled += batch.length;
      // Only the ids asked for are read: anything else in the answer is ignored.
      const byId = new Map<string, Record<string, unknown>>();
      for (const it of items) {
        if (!it || typeof it !== 'object' || Array.isArray(it)) continue;
        const id = kind.itemId(it as Record<string, unknown>);
        if (id) byId.set(id, it as Record<string, unknown>);
      }
      for (const r of batch) {
        const item = byId.get(kind.store.ref(r).upstreamId);
        const late = this.late(r);
        if (item && !(late && kind.stateOf(item) === 'pending')) this.count(out, await applyTaskItem(ctx, kind, r, item));
        else if (late) this.count(out, await failTask(ctx, kind, r, kind.timeout.reason));
      }
    }
  }
}

/** Polls every kind every `everyMs` on whichever node holds that kind's job lock; returns a stop function. */
export function schedulePolls(scheduler: Pick<Scheduler, 'every'>, pollers: readonly TaskPoller[], everyMs: number): () => void {
  const stops = pollers.map((p) => scheduler.every(p.kind.jobName, everyMs, (signal) => p.runOnce(signal)));
  return () => {
    for (const stop of stops) stop();
  };
}
