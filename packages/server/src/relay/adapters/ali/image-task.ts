import { dashscopeTaskDone, dashscopeTaskId, TASK_POLL_FAILED, TASK_TIMEOUT } from './formats/dashscope/images.js';
import type { FollowUpReply } from '../types.js';

/**
 * How the image task is polled: the reference waits 20 × 3 s; here the first look comes sooner
 * (most tasks finish in seconds) and the gap grows to 3 s, within the same one-minute bound.
 */
export interface TaskPolling {
  /** Waits before each poll, ms; the last repeats. */
  delaysMs: readonly number[];
  /** The longest the caller waits for the task, ms. */
  maxWaitMs: number;
}

export const DEFAULT_TASK_POLLING: TaskPolling = { delaysMs: [500, 1000, 2000, 3000], maxWaitMs: 60_000 };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Polls `GET {root}/api/v1/tasks/{id}` (Bearer key) until the task is done or the wait is over.
 * Always answers a JSON object: the final task, or one carrying ModelGate's own failure code
 * (timeout, a poll refused or unreachable) for the adapter to classify.
 */
export async function pollImageTask(
  submitted: Record<string, unknown>,
  root: string,
  key: string,
  get: (url: string, headers: Record<string, string>) => Promise<FollowUpReply>,
  polling: TaskPolling = DEFAULT_TASK_POLLING,
): Promise<Record<string, unknown>> {
  const id = dashscopeTaskId(submitted);
  if (!id) return submitted;
  const started = Date.now();
  for (let i = 0; ; i++) {
    const delay = polling.delaysMs[Math.min(i, polling.delaysMs.length - 1)] ?? 1000;
    if (Date.now() - started + delay > polling.maxWaitMs) {
      return { code: TASK_TIMEOUT, message: `the image task ${id} did not finish within ${Math.round(polling.maxWaitMs / 1000)} s`, request_id: submitted.request_id };
    }
    await sleep(delay);
    const r = await get(`${root}/api/v1/tasks/${encodeURIComponent(id)}`, { authorization: `Bearer ${key}` });
    if (r.status !== 200 || !r.json) {
      const why = r.json && typeof r.json.message === 'string' ? r.json.message : r.text.slice(0, 200);
      return { code: TASK_POLL_FAILED, message: `polling the image task ${id} failed${r.status ? ` (status ${r.status})` : ''}: ${why}`, request_id: submitted.request_id };
    }
    if (dashscopeTaskDone(r.json)) return r.json;
  }
}
