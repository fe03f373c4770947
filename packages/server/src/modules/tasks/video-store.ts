import { VIDEO_PLATFORM } from '@modelgate/shared';
import type { TaskStore } from '../../relay/adapters/task-types.js';
import type { VideoStatus } from '../../relay/video/video-types.js';
import { tasksTableStore, type TaskPatch, type TaskRow } from './task-store.js';

/**
 * A video task in the `tasks` table (platform `video`): `task_id` is the gateway's public id
 * (`video_…`, what both surfaces and the console show), the upstream's own id is in `properties`
 * with what the task was asked and billed as, and `data` holds the last normalised upstream status
 * (never the upstream's raw answer, which may carry the video's bytes).
 */
export interface VideoProps {
  upstream_id: string;
  /** The provider folder that made it (for the console and the logs). */
  provider: string;
  model: string;
  upstream_model: string;
  seconds: number;
  resolution: string;
  size: string;
  /** The prompt as asked, cut to PROMPT_KEPT characters (the whole one went upstream). */
  prompt: string;
  images: number;
}

/** What a stored prompt keeps: the `properties` column is a MySQL TEXT (64 KB), four bytes a character at worst. */
export const PROMPT_KEPT = 4000;

function parse(text: string | null | undefined): Record<string, unknown> {
  try {
    const v = text ? (JSON.parse(text) as unknown) : null;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export function videoProps(row: Pick<TaskRow, 'properties'>): VideoProps {
  const p = parse(row.properties);
  return {
    upstream_id: str(p.upstream_id),
    provider: str(p.provider),
    model: str(p.model),
    upstream_model: str(p.upstream_model),
    seconds: num(p.seconds),
    resolution: str(p.resolution),
    size: str(p.size),
    prompt: str(p.prompt),
    images: num(p.images),
  };
}

/** The last upstream status a task stored (`{state: 'queued'}` before the first poll). */
export function videoStatusOf(row: Pick<TaskRow, 'data'>): VideoStatus {
  const d = parse(row.data);
  const state = d.state === 'in_progress' || d.state === 'success' || d.state === 'failure' ? d.state : 'queued';
  const error = d.error && typeof d.error === 'object' ? (d.error as Record<string, unknown>) : undefined;
  return {
    state,
    ...(typeof d.progress === 'number' ? { progress: d.progress } : {}),
    ...(str(d.url) ? { url: str(d.url) } : {}),
    ...(typeof d.expiresAt === 'number' ? { expiresAt: d.expiresAt } : {}),
    ...(error ? { error: { code: str(error.code), message: str(error.message), ...(error.moderation === true ? { moderation: true } : {}) } } : {}),
  };
}

/** The video rows as the task framework reads them: the upstream id from `properties`, the public id as the refund's label. */
export function videoTaskStore(): TaskStore<TaskRow, TaskPatch> {
  const base = tasksTableStore(VIDEO_PLATFORM);
  return {
    ...base,
    ref: (r) => ({ ...base.ref(r), upstreamId: videoProps(r).upstream_id, label: r.task_id ?? '' }),
  };
}
