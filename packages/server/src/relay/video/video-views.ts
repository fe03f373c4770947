import { openAIVideoStatus } from '@modelgate/shared';
import type { TaskRow } from '../../modules/tasks/task-store.js';
import { videoProps, videoStatusOf } from '../../modules/tasks/video-store.js';
import type { UrlLifetime } from './video-types.js';

/** Where a finished video is fetched from: the content route under `base`, or a long-lived upstream URL handed out as it is. */
export function videoUrl(row: TaskRow, base: string, urls: UrlLifetime | undefined): string {
  if (row.status !== 'SUCCESS') return '';
  const s = videoStatusOf(row);
  const now = Math.floor(Date.now() / 1000);
  if (urls === 'lasting' && s.url && /^https?:\/\//i.test(s.url) && !(s.expiresAt && s.expiresAt <= now)) return s.url;
  return `${base}/v1/videos/${encodeURIComponent(row.task_id)}/content`;
}

const percent = (p: string | null | undefined) => Math.min(100, Math.max(0, Number.parseInt(p ?? '', 10) || 0));

/**
 * A task as OpenAI's Videos API describes a job (`VideoResource` in OpenAI's published spec).
 * `size` and `seconds` are what the task was planned and billed as; a size outside Sora's four is
 * another provider's (the spec lists Sora's only).
 */
export function openAIVideoView(row: TaskRow) {
  const p = videoProps(row);
  const s = videoStatusOf(row);
  const status = openAIVideoStatus(row.status ?? '');
  return {
    id: row.task_id,
    object: 'video' as const,
    model: p.model,
    status,
    progress: percent(row.progress),
    created_at: Number(row.submit_time),
    completed_at: status === 'completed' || status === 'failed' ? Number(row.finish_time) || Number(row.updated_at) : null,
    expires_at: status === 'completed' && s.expiresAt ? s.expiresAt : null,
    prompt: p.prompt || null,
    size: p.size,
    seconds: String(p.seconds),
    remixed_from_video_id: null,
    // A content-policy refusal in OpenAI's own word, whatever the provider calls it.
    error: status === 'failed' ? { code: s.error?.moderation ? 'moderation_blocked' : s.error?.code || 'video_generation_failed', message: row.fail_reason || s.error?.message || 'video generation failed' } : null,
  };
}

/** The unified surface's answer to a submit (the reference answers an OpenAI-style video object with `task_id` beside `id`). */
export function unifiedSubmitView(row: TaskRow) {
  const v = openAIVideoView(row);
  return { id: v.id, task_id: v.id, object: v.object, model: v.model, status: v.status, progress: v.progress, created_at: v.created_at, seconds: v.seconds, size: v.size };
}

/**
 * The unified surface's answer to a fetch (`GET /v1/video/generations/{task_id}`): the reference's
 * `{code: "success", data: <task>}` with its task fields — upper-case status, progress as "50%",
 * `fail_reason` and the video's `result_url`.
 */
export function unifiedFetchView(row: TaskRow, url: string) {
  const p = videoProps(row);
  return {
    code: 'success',
    message: '',
    data: {
      task_id: row.task_id,
      platform: row.platform,
      action: row.action,
      status: row.status,
      fail_reason: row.fail_reason ?? '',
      result_url: url,
      submit_time: Number(row.submit_time),
      start_time: Number(row.start_time),
      finish_time: Number(row.finish_time),
      progress: row.progress || '0%',
      quota: Number(row.quota),
      properties: { model: p.model, seconds: p.seconds, size: p.size, resolution: p.resolution },
      data: { format: 'mp4', url },
    },
  };
}
