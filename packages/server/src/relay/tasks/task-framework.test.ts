import { ChannelStatus, LogType } from '@modelgate/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DbJobLocks } from '../../cluster/job-locks.js';
import { SecretBox } from '../../crypto/secret-box.js';
import { Scheduler } from '../../jobs/scheduler.js';
import { Ledger } from '../../ledger/ledger.js';
import { QuotaLedger } from '../../ledger/quota-ledger.js';
import { OptionsService } from '../../modules/options/options.service.js';
import { tasksTableStore, type TaskPatch, type TaskRow } from '../../modules/tasks/task-store.js';
import { captureLogger } from '../../test-support/capture-logger.js';
import { useMigratedDb } from '../../test-support/test-db.js';
import type { TaskAdapter } from '../adapters/task-types.js';
import type { RuntimeChannel } from '../channel-cache.js';
import { chargedSubmit, type Payer } from './task-charge.js';
import { schedulePolls, TaskPoller } from './task-poller.js';
import { applyTaskItem, failTask } from './task-settle.js';

/**
 * The task framework on a real SQLite database, with a kind that exists only here: what a new
 * kind (video generation next) has to write is this `fakeKind` plus its routes. Its upstream is an
 * in-memory job list the tests move by hand.
 */
const FAKE_TYPE = 9001;
const QUOTA = 25_000;
const HOUR = 60 * 60 * 1000;

interface FakeJob {
  id: string;
  status: 'QUEUED' | 'RUNNING' | 'DONE' | 'FAILED';
  error?: string;
}

const upstream = {
  jobs: new Map<string, FakeJob>(),
  down: false,
  /** Concurrent fetches in flight, and the most seen at once. */
  inFlight: 0,
  peak: 0,
  fetches: 0,
  fetchDelayMs: 0,
  seq: 0,
};

const fakeKind: TaskAdapter<TaskRow, TaskPatch> = {
  slug: 'fake-video',
  contract: 2,
  types: [FAKE_TYPE],
  platform: 'fake',
  jobName: 'fake-task-poll',
  async call(_target, _method, path, body) {
    const prompt = (body as { prompt?: string }).prompt ?? '';
    if (prompt === 'refuse') return { status: 200, json: { ok: false } };
    const id = `job-${++upstream.seq}`;
    upstream.jobs.set(id, { id, status: 'QUEUED' });
    return { status: 200, json: { ok: true, id, path } };
  },
  async fetchMany(_target, ids) {
    upstream.fetches += 1;
    upstream.inFlight += 1;
    upstream.peak = Math.max(upstream.peak, upstream.inFlight);
    await new Promise((r) => setTimeout(r, upstream.fetchDelayMs));
    upstream.inFlight -= 1;
    if (upstream.down) return null;
    return ids.map((id) => upstream.jobs.get(id)).filter((j): j is FakeJob => !!j);
  },
  itemId: (item) => (typeof item.id === 'string' ? item.id : null),
  stateOf: (item) => (item.status === 'DONE' ? 'success' : item.status === 'FAILED' ? 'failure' : 'pending'),
  step(row, item) {
    const state = fakeKind.stateOf(item);
    const status = state === 'success' ? 'SUCCESS' : state === 'failure' ? 'FAILURE' : 'IN_PROGRESS';
    const patch: TaskPatch = {
      status,
      fail_reason: typeof item.error === 'string' ? item.error : (row.fail_reason ?? ''),
      submit_time: Number(row.submit_time),
      start_time: Number(row.start_time),
      finish_time: state === 'pending' ? Number(row.finish_time) : Math.floor(Date.now() / 1000),
      progress: state === 'pending' ? '50%' : '100%',
      data: row.data ?? '',
    };
    return patch.status === row.status && patch.progress === row.progress ? null : { patch, state };
  },
  failure: (reason) => ({ status: 'FAILED', error: reason }),
  store: tasksTableStore('fake'),
  timeout: { ms: HOUR, reason: 'timed out' },
  price: { model: (action) => `fake_${action}`, defaultUsd: () => 0.05 },
  refund: { ref: 'fake', log: (id, quota) => `fake task ${id} failed, refunded ${quota}` },
};

describe('task framework (fake kind, SQLite)', () => {
  const db = useMigratedDb('sqlite');
  let ctx: {
    db: ReturnType<typeof db>;
    quotaLedger: QuotaLedger;
    options: OptionsService;
    relay: { ledger: Ledger; channels: { ensure(): undefined; get(id: number): RuntimeChannel | undefined } };
  };
  const channels = new Map<number, RuntimeChannel>();
  let channelId = 0;
  let users = 0;

  beforeAll(async () => {
    const d = db();
    ctx = {
      db: d,
      quotaLedger: new QuotaLedger(d),
      options: new OptionsService(d, new SecretBox({ current: 'task-framework-test' })),
      relay: { ledger: new Ledger(d), channels: { ensure: () => undefined, get: (id) => channels.get(id) } },
    };
    const ch = await d.db.insertInto('channels').values({ key: 'k', type: FAKE_TYPE, name: 'fake', models: 'fake_generate' }).executeTakeFirstOrThrow();
    channelId = Number(ch.insertId);
    channels.set(channelId, {
      id: channelId,
      type: FAKE_TYPE,
      name: 'fake',
      status: ChannelStatus.Enabled,
      autoBan: false,
      maxInputTokens: 0,
      priority: 0,
      weight: 0,
      modelMapping: null,
      statusCodeMapping: null,
      target: { id: channelId, type: FAKE_TYPE, key: 'k', baseUrl: 'http://fake.invalid', other: '', organization: '', setting: {} },
    });
  });

  afterEach(() => {
    upstream.down = false;
    upstream.fetchDelayMs = 0;
    upstream.peak = 0;
  });

  /** A user funded through the ledger with `quota`. */
  async function payer(quota: number): Promise<Payer> {
    const name = `u${++users}`;
    const r = await ctx.db.db.insertInto('users').values({ username: name, password: 'x' }).executeTakeFirstOrThrow();
    const userId = Number(r.insertId);
    expect(await ctx.quotaLedger.move({ kind: 'admin', userId, quota })).toBe('applied');
    return { userId, username: name, tokenId: 0, tokenName: '', tokenLimited: false, group: 'default' };
  }

  const balance = async (userId: number) => {
    const u = await ctx.db.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
    return { quota: Number(u.quota), used: Number(u.used_quota) };
  };

  /** submit → charge through the framework, then the kind's row, as a kind's route does. */
  async function submit(p: Payer, prompt = 'a cat'): Promise<{ charged: number; row?: TaskRow }> {
    const { reply, charged, accepted } = await chargedSubmit(ctx, {
      requestId: `req-${p.userId}-${prompt}-${Math.random()}`,
      payer: p,
      model: 'fake_generate',
      action: 'GENERATE',
      quota: QUOTA,
      channelId,
      lang: 'en',
      shortQuota: (who) => new Error(`short: ${who}`),
      send: async () => (await fakeKind.call(channels.get(channelId)!.target, 'POST', '/generate', { prompt }, 1000)).json as { ok: boolean; id?: string },
      accepted: (r) => r.ok,
    });
    if (!accepted) return { charged };
    const now = Math.floor(Date.now() / 1000);
    const ins = await ctx.db.db
      .insertInto('tasks')
      .values({ created_at: now, updated_at: now, task_id: reply.id!, platform: 'fake', user_id: p.userId, channel_id: channelId, quota: charged, action: 'GENERATE', status: 'SUBMITTED', fail_reason: '', submit_time: now, start_time: 0, finish_time: 0, progress: '0%', properties: '{}', data: 'null' })
      .executeTakeFirstOrThrow();
    return { charged, row: await ctx.db.db.selectFrom('tasks').selectAll().where('id', '=', Number(ins.insertId)).executeTakeFirstOrThrow() };
  }

  const rowOf = (id: number) => ctx.db.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const refunds = async (userId: number) => (await ctx.db.db.selectFrom('ledger_entries').select(['quota_delta', 'used_delta', 'ref']).where('kind', '=', 'refund').where('user_id', '=', userId).execute()).map((e) => ({ quota: Number(e.quota_delta), used: Number(e.used_delta), ref: e.ref }));

  it('submit charges the price once the upstream accepts; the poll settles a success with no refund', async () => {
    const p = await payer(100_000);
    const { charged, row } = await submit(p);
    expect(charged).toBe(QUOTA);
    expect(await balance(p.userId)).toEqual({ quota: 75_000, used: 25_000 });
    const consume = await ctx.db.db.selectFrom('logs').select(['quota', 'model_name', 'content']).where('user_id', '=', p.userId).where('type', '=', LogType.Consume).execute();
    expect(consume).toEqual([{ quota: 25_000, model_name: 'fake_generate', content: '模型固定价格 0.0500，操作 GENERATE' }]);

    const poller = new TaskPoller(ctx, fakeKind);
    upstream.jobs.get(row!.task_id!)!.status = 'RUNNING';
    expect(await poller.runOnce()).toMatchObject({ updated: 1, refunded: 0 });
    expect(await rowOf(Number(row!.id))).toMatchObject({ status: 'IN_PROGRESS', progress: '50%' });
    upstream.jobs.get(row!.task_id!)!.status = 'DONE';
    await poller.runOnce();
    expect(await rowOf(Number(row!.id))).toMatchObject({ status: 'SUCCESS', progress: '100%' });
    // A finished task is never polled again.
    const before = upstream.fetches;
    expect(await poller.runOnce()).toEqual({ polled: 0, updated: 0, refunded: 0 });
    expect(upstream.fetches).toBe(before);
    expect(await balance(p.userId)).toEqual({ quota: 75_000, used: 25_000 });
    expect(await refunds(p.userId)).toEqual([]);
  });

  it('a refused submit charges nothing, and a caller who cannot pay never reaches the upstream', async () => {
    const p = await payer(100_000);
    expect(await submit(p, 'refuse')).toEqual({ charged: 0 });
    expect(await balance(p.userId)).toEqual({ quota: 100_000, used: 0 });

    const poor = await payer(QUOTA - 1);
    const seq = upstream.seq;
    await expect(submit(poor)).rejects.toThrow('short: user');
    expect(upstream.seq).toBe(seq);
    expect(await balance(poor.userId)).toEqual({ quota: QUOTA - 1, used: 0 });
  });

  it('a failure refunds the user exactly once, however often it is seen', async () => {
    const p = await payer(100_000);
    const { row } = await submit(p);
    const job = upstream.jobs.get(row!.task_id!)!;
    job.status = 'FAILED';
    job.error = 'content policy';
    const poller = new TaskPoller(ctx, fakeKind);
    expect(await poller.runOnce()).toMatchObject({ updated: 1, refunded: 1 });
    // The stale row seen again (a late notification, a slow poller): nothing moves.
    expect(await applyTaskItem(ctx, fakeKind, row!, { ...job })).toEqual({ changed: false, refunded: false });
    expect(await failTask(ctx, fakeKind, row!, 'again')).toEqual({ changed: false, refunded: false });
    await poller.runOnce();
    expect(await rowOf(Number(row!.id))).toMatchObject({ status: 'FAILURE', progress: '100%', fail_reason: 'content policy' });
    expect(await balance(p.userId)).toEqual({ quota: 100_000, used: 0 });
    expect(await refunds(p.userId)).toEqual([{ quota: QUOTA, used: -QUOTA, ref: `fake:${row!.id}` }]);
    const system = await ctx.db.db.selectFrom('logs').select(['content', 'quota']).where('user_id', '=', p.userId).where('type', '=', LogType.System).execute();
    expect(system).toEqual([{ content: `fake task ${row!.task_id} failed, refunded ${QUOTA}`, quota: QUOTA }]);
  });

  it('two pollers racing over the same failed task settle it once', async () => {
    const p = await payer(100_000);
    const tasks = [await submit(p, 'one'), await submit(p, 'two'), await submit(p, 'three')];
    expect(await balance(p.userId)).toEqual({ quota: 25_000, used: 75_000 });
    for (const t of tasks) upstream.jobs.get(t.row!.task_id!)!.status = 'FAILED';
    upstream.fetchDelayMs = 20;
    const runs = await Promise.all([new TaskPoller(ctx, fakeKind).runOnce(), new TaskPoller(ctx, fakeKind).runOnce()]);
    expect(runs.map((r) => r.refunded).reduce((a, b) => a + b)).toBe(3);
    expect(await balance(p.userId)).toEqual({ quota: 100_000, used: 0 });
    expect((await refunds(p.userId)).map((r) => r.quota)).toEqual([QUOTA, QUOTA, QUOTA]);
  });

  it('polls under the job lock: two nodes scheduling the same kind never poll at once', async () => {
    const p = await payer(100_000);
    const { row } = await submit(p);
    upstream.jobs.get(row!.task_id!)!.status = 'RUNNING';
    upstream.fetchDelayMs = 60;
    const nodes = ['node-a', 'node-b'].map((n) => new Scheduler(new DbJobLocks(ctx.db, n), n, captureLogger().log));
    const stops = nodes.map((s) => schedulePolls(s, [new TaskPoller(ctx, fakeKind)], 20));
    try {
      const fetches = upstream.fetches;
      for (let i = 0; i < 100 && upstream.fetches < fetches + 4; i++) await new Promise((r) => setTimeout(r, 20));
      expect(upstream.fetches).toBeGreaterThanOrEqual(fetches + 4);
      expect(upstream.peak).toBe(1);
      upstream.jobs.get(row!.task_id!)!.status = 'FAILED';
      for (let i = 0; i < 100 && (await rowOf(Number(row!.id))).progress !== '100%'; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      for (const stop of stops) stop();
      await Promise.all(nodes.map((s) => s.stop()));
    }
    expect(upstream.peak).toBe(1);
    expect(await rowOf(Number(row!.id))).toMatchObject({ status: 'FAILURE', progress: '100%' });
    expect(await refunds(p.userId)).toEqual([{ quota: QUOTA, used: -QUOTA, ref: `fake:${row!.id}` }]);
  });

  it('a task past the timeout is failed and refunded, whether its upstream answers or not', async () => {
    const p = await payer(100_000);
    const running = await submit(p, 'slow');
    const unanswered = await submit(p, 'lost');
    upstream.jobs.get(running.row!.task_id!)!.status = 'RUNNING';
    const old = Math.floor((Date.now() - HOUR - 60_000) / 1000);
    await ctx.db.db.updateTable('tasks').set({ submit_time: old }).where('id', '=', Number(running.row!.id)).execute();
    await ctx.db.db.updateTable('tasks').set({ submit_time: old }).where('id', '=', Number(unanswered.row!.id)).execute();
    // The upstream still says "running" for one task: past the timeout that is a failure.
    upstream.jobs.delete(unanswered.row!.task_id!);
    await new TaskPoller(ctx, fakeKind).runOnce();
    for (const t of [running, unanswered]) expect(await rowOf(Number(t.row!.id))).toMatchObject({ status: 'FAILURE', progress: '100%', fail_reason: 'timed out' });
    expect(await balance(p.userId)).toEqual({ quota: 100_000, used: 0 });

    // An upstream that cannot answer keeps young tasks pending, and fails old ones.
    const young = await submit(p, 'young');
    const aged = await submit(p, 'aged');
    await ctx.db.db.updateTable('tasks').set({ submit_time: old }).where('id', '=', Number(aged.row!.id)).execute();
    upstream.down = true;
    expect(await new TaskPoller(ctx, fakeKind).runOnce()).toMatchObject({ polled: 0, updated: 1, refunded: 1 });
    expect(await rowOf(Number(young.row!.id))).toMatchObject({ status: 'SUBMITTED', progress: '0%' });
    expect(await rowOf(Number(aged.row!.id))).toMatchObject({ status: 'FAILURE', fail_reason: 'timed out' });
    expect(await balance(p.userId)).toEqual({ quota: 75_000, used: 25_000 });
    expect((await refunds(p.userId)).map((r) => r.quota)).toEqual([QUOTA, QUOTA, QUOTA]);
    upstream.jobs.get(young.row!.task_id!)!.status = 'DONE';
    upstream.down = false;
    await new TaskPoller(ctx, fakeKind).runOnce();
  });

  it('a task whose channel is gone is failed and refunded', async () => {
    const p = await payer(100_000);
    const { row } = await submit(p);
    await ctx.db.db.updateTable('tasks').set({ channel_id: channelId + 1000 }).where('id', '=', Number(row!.id)).execute();
    expect(await new TaskPoller(ctx, fakeKind).runOnce()).toMatchObject({ updated: 1, refunded: 1 });
    expect(await rowOf(Number(row!.id))).toMatchObject({ status: 'FAILURE', fail_reason: `channel #${channelId + 1000} no longer exists` });
    expect(await balance(p.userId)).toEqual({ quota: 100_000, used: 0 });
  });
});
