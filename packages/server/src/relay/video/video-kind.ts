import { VIDEO_CHANNEL_TYPES, VIDEO_PLATFORM } from '@modelgate/shared';
import { videoStatusOf, videoTaskStore } from '../../modules/tasks/video-store.js';
import type { TaskPatch, TaskRow } from '../../modules/tasks/task-store.js';
import type { TaskAdapter, TaskState } from '../adapters/task-types.js';
import { jsonTaskCall, patchChanges } from '../tasks/task-wire.js';
import { loadVideoProviders } from './video-registry.js';
import type { VideoState, VideoStatus } from './video-types.js';

/** Upstream polls in flight at once for one batch (one channel). */
const POLL_CONCURRENCY = 4;
/** A video still unfinished this long after its submit is failed and refunded (queues of the busy providers run for hours). */
const TIMEOUT_MS = 12 * 60 * 60 * 1000;
/** What `fail_reason` keeps of an upstream's words. */
const REASON_MAX = 1000;

const STATUS: Record<VideoState, string> = { queued: 'QUEUED', in_progress: 'IN_PROGRESS', success: 'SUCCESS', failure: 'FAILURE' };

/** A poll item: the upstream id it is about and the provider's normalised word. */
type Item = VideoStatus & { id: string };

function stateOf(item: Record<string, unknown>): TaskState {
  return item.state === 'success' ? 'success' : item.state === 'failure' ? 'failure' : 'pending';
}

/** The progress a task shows: final states 100 %, else the upstream's figure, else a step by state (never 0 % once polled, never 100 % before the end). */
function progressOf(s: VideoStatus): string {
  if (s.state === 'success' || s.state === 'failure') return '100%';
  const n = typeof s.progress === 'number' && Number.isFinite(s.progress) ? Math.round(s.progress) : s.state === 'queued' ? 10 : 50;
  return `${Math.min(99, Math.max(1, n))}%`;
}

function statusOf(item: Record<string, unknown>): VideoStatus {
  const { id: _id, ...rest } = item;
  return videoStatusOf({ data: JSON.stringify(rest) });
}

/** Runs `fn` over `list` with at most `limit` at once, keeping the order. */
async function mapLimited<T, R>(list: readonly T[], limit: number, fn: (v: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      out[i] = await fn(list[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, list.length) }, worker));
  return out;
}

/**
 * The video task kind (contract v2): every channel type that makes videos, one platform (`video`)
 * in the `tasks` table, polled by one job. Each upstream is asked through its channel type's
 * provider (video-registry.ts), whose answer is normalised (`VideoStatus`) before the framework
 * sees it; billing and the surfaces are relay/video's, settling and refunds relay/tasks'.
 */
export const videoTaskAdapter: TaskAdapter<TaskRow, TaskPatch> = {
  slug: 'video',
  contract: 2,
  types: VIDEO_CHANNEL_TYPES,
  platform: VIDEO_PLATFORM,
  docsModes: 'video tasks at `/v1/video/generations` and `/v1/videos` (no other `/v1` mode)',
  jobName: 'video-task-poll',
  // A raw JSON call with the key as a Bearer secret; the video routes speak through the channel type's provider instead.
  call: jsonTaskCall((key) => ({ authorization: `Bearer ${key}` })),
  async fetchMany(target, ids, timeoutMs) {
    const provider = (await loadVideoProviders()).get(target.type);
    if (!provider) return null;
    const answers = await mapLimited(ids, POLL_CONCURRENCY, async (id): Promise<Item | null> => {
      const s = await provider.poll(target, id, timeoutMs).catch(() => null);
      return s ? { ...s, id } : null;
    });
    const items = answers.filter((a): a is Item => a !== null);
    // Nothing answered: the upstream is down (the poller backs off); some answered: the rest stay pending.
    return items.length === 0 && ids.length > 0 ? null : items;
  },
  itemId: (item) => (typeof item.id === 'string' ? item.id : null),
  stateOf,
  step(row, item) {
    const s = statusOf(item);
    const now = Math.floor(Date.now() / 1000);
    const final = s.state === 'success' || s.state === 'failure';
    const next: TaskPatch = {
      status: STATUS[s.state],
      fail_reason: s.state === 'failure' ? (s.error?.message || s.error?.code || 'video generation failed').slice(0, REASON_MAX) : '',
      submit_time: Number(row.submit_time),
      start_time: Number(row.start_time) || (s.state === 'queued' ? 0 : now),
      finish_time: final ? Number(row.finish_time) || now : 0,
      progress: progressOf(s),
      data: JSON.stringify(s),
    };
    if (!patchChanges(next, row)) return null;
    return { patch: next, state: stateOf(item) };
  },
  failure: (reason) => ({ state: 'failure', error: { code: 'gateway', message: reason } }),
  store: videoTaskStore(),
  timeout: { ms: TIMEOUT_MS, reason: 'upstream video task timed out (over 12 hours)' },
  // Videos are priced per second by the VideoPrice table (relay/video/video-billing.ts); this per-call rule is the fallback's model name only.
  price: { model: (action) => action, defaultUsd: () => 0 },
  refund: { ref: VIDEO_PLATFORM, log: (label, quota) => `异步任务执行失败 ${label}，补偿 ${quota}` },
};
