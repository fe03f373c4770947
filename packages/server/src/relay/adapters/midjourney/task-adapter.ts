import { ChannelType, mjActionModel, type MjAction } from '@modelgate/shared';
import { httpUrl, MJ_TIMEOUT_MS, MJ_TIMEOUT_REASON, mjStore, normalMj, notifyBindingOf, storedProperties, type MjPatch, type MjRow } from '../../../modules/tasks/mj-store.js';
import { finalState, jsonTaskCall, patchChanges } from '../../tasks/task-wire.js';
import type { TaskAdapter, TaskStep } from '../task-types.js';

// The proxy authenticates with `mj-api-secret` (providers-china-and-tasks §8.1); a wrong one is a 401 with an empty body.
const send = jsonTaskCall((key) => ({ 'mj-api-secret': key }));

const text = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);
const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isSafeInteger(v) ? v : fallback);
const json = (v: unknown, fallback: string): string => (v && typeof v === 'object' ? JSON.stringify(v) : fallback);

/**
 * A proxy Task (a list-by-condition item or a notify body) applied to a stored row. A task that
 * failed (FAILURE, or a fail reason before it finished) ends at 100 %; so does a SUCCESS.
 */
function mjStep(stored: MjRow, u: Record<string, unknown>): TaskStep<MjPatch> | null {
  const row = normalMj(stored);
  const next: MjPatch = {
    progress: text(u.progress, row.progress),
    prompt_en: text(u.promptEn, row.prompt_en),
    state: text(u.state, row.state),
    submit_time: int(u.submitTime, Number(row.submit_time)),
    start_time: int(u.startTime, Number(row.start_time)),
    finish_time: int(u.finishTime, Number(row.finish_time)),
    // An empty URL clears the preview (a failure); anything but http(s) is ignored.
    image_url: u.imageUrl === '' ? '' : (httpUrl(u.imageUrl) ?? row.image_url),
    status: text(u.status, row.status),
    fail_reason: text(u.failReason, row.fail_reason),
    properties: u.properties && typeof u.properties === 'object' ? storedProperties(u.properties, notifyBindingOf(row)) : row.properties,
    buttons: json(u.buttons, row.buttons),
  };
  const state = finalState(next, next.status === 'FAILURE' || (next.progress !== '100%' && next.fail_reason !== ''));
  return patchChanges(next, row) ? { patch: next, state } : null;
}

/** Unpriced Midjourney actions cost $0.1 (§8.3). */
const DEFAULT_MJ_PRICE = 0.1;

/**
 * Midjourney Proxy (novicezk) and Midjourney Proxy Plus (trueai): the same wire format under `/mj`
 * (providers-china-and-tasks §8). Tasks live in the `midjourneys` table; the poller reads
 * `POST /mj/task/list-by-condition`.
 */
export const midjourneyTaskAdapter: TaskAdapter<MjRow, MjPatch> = {
  slug: 'midjourney',
  contract: 2,
  types: [ChannelType.Midjourney, ChannelType.MidjourneyPlus],
  platform: 'mj',
  jobName: 'mj-task-poll',
  call: send,
  async fetchMany(target, ids, timeoutMs) {
    try {
      const r = await send(target, 'POST', '/mj/task/list-by-condition', { ids }, timeoutMs);
      return r.status === 200 && Array.isArray(r.json) ? (r.json as unknown[]) : null;
    } catch {
      return null;
    }
  },
  itemId: (item) => (typeof item.id === 'string' ? item.id : null),
  stateOf: (item) => (item.status === 'SUCCESS' ? 'success' : item.status === 'FAILURE' ? 'failure' : 'pending'),
  step: mjStep,
  failure: (reason) => ({ status: 'FAILURE', failReason: reason, finishTime: Date.now() }),
  store: mjStore,
  timeout: { ms: MJ_TIMEOUT_MS, reason: MJ_TIMEOUT_REASON },
  price: { model: (action) => mjActionModel(action as MjAction), defaultUsd: () => DEFAULT_MJ_PRICE },
  refund: { ref: 'mj', log: (mjId, quota) => `构图失败 ${mjId}，补偿 ${quota}` },
};
