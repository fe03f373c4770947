import { isHttpUrl } from '@modelgate/shared';
import type { Selectable } from 'kysely';
import type { MidjourneysTable } from '../../db/schema.js';
import type { TaskStore } from '../../relay/adapters/task-types.js';

export type MjRow = Selectable<MidjourneysTable>;

function parse(s: string): unknown {
  try {
    return s ? (JSON.parse(s) as unknown) : {};
  } catch {
    return {};
  }
}

/** Longest image URL kept (signed CDN links run to a few hundred characters). */
const IMAGE_URL_MAX = 4096;

/**
 * The value when it is an absolute http(s) URL, else null. Task image URLs come from the proxy
 * (or, before issue 29, from anyone with the task's key): `javascript:`, `data:` and the like
 * must never reach a console link or the image fetch.
 */
export function httpUrl(v: unknown): string | null {
  return typeof v === 'string' && v.length <= IMAGE_URL_MAX && isHttpUrl(v) ? v : null;
}

/**
 * A task's notify binding, kept in its stored properties under a key no proxy uses: the nonce the
 * signed callback URL carries (relay/mj/mj-notify.ts) and the client's own notifyHook, if it gave
 * one. Never shown to the caller; a proxy's word never replaces it.
 */
export const NOTIFY_BINDING = 'modelgateNotify';
export interface NotifyBinding {
  nonce: string;
  hook: string;
}

/** Proxies echo a task's notifyHook in its properties; that URL carries the signature, so it is never stored or shown. */
function cleanProperties(v: unknown): Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  const { [NOTIFY_BINDING]: _binding, notifyHook: _hook, ...rest } = v as Record<string, unknown>;
  return rest;
}

export function notifyBindingOf(r: Pick<MjRow, 'properties'>): NotifyBinding | null {
  const b = (parse(r.properties ?? '') as Record<string, unknown> | null)?.[NOTIFY_BINDING] as Partial<NotifyBinding> | undefined;
  return b && typeof b.nonce === 'string' && b.nonce ? { nonce: b.nonce, hook: typeof b.hook === 'string' ? b.hook : '' } : null;
}

/** The properties column: what the proxy said (minus any notifyHook), plus the task's binding. */
export function storedProperties(props: unknown, binding: NotifyBinding | null): string {
  return JSON.stringify(binding ? { ...cleanProperties(props), [NOTIFY_BINDING]: binding } : cleanProperties(props));
}

/** A stored task in the proxy's own Task shape (what `task/{id}/fetch` and list-by-condition answer). */
/** Rows of older versions (or imported ones) may hold NULL in the TEXT columns. */
export function normalMj(r: MjRow): MjRow {
  const t = (v: string | null | undefined) => v ?? '';
  return { ...r, prompt: t(r.prompt), prompt_en: t(r.prompt_en), description: t(r.description), state: t(r.state), image_url: t(r.image_url), fail_reason: t(r.fail_reason), buttons: t(r.buttons), properties: t(r.properties), status: t(r.status), progress: t(r.progress), action: t(r.action), mj_id: t(r.mj_id) };
}

export function mjTaskJson(stored: MjRow): Record<string, unknown> {
  const r = normalMj(stored);
  const buttons = parse(r.buttons);
  return {
    id: r.mj_id,
    action: r.action,
    status: r.status,
    prompt: r.prompt,
    promptEn: r.prompt_en,
    description: r.description,
    state: r.state,
    submitTime: Number(r.submit_time),
    startTime: Number(r.start_time),
    finishTime: Number(r.finish_time),
    imageUrl: httpUrl(r.image_url) ?? '',
    progress: r.progress,
    failReason: r.fail_reason,
    properties: cleanProperties(parse(r.properties)),
    buttons: Array.isArray(buttons) ? buttons : [],
  };
}

/** Upstream timed out: a task not finished an hour after it was submitted is failed (and refunded). */
export const MJ_TIMEOUT_MS = 60 * 60 * 1000;
export const MJ_TIMEOUT_REASON = '上游任务超时（超过1小时）';

/** The columns an upstream's word can move (relay/adapters/midjourney/task-adapter.ts computes them). */
export interface MjPatch {
  progress: string;
  prompt_en: string;
  state: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  fail_reason: string;
  properties: string;
  buttons: string;
}

/** The drawing tasks' table as the task framework sees it (relay/tasks/). */
export const mjStore: TaskStore<MjRow, MjPatch> = {
  loadOpen: (db, limit) => db.db.selectFrom('midjourneys').selectAll().where('progress', '!=', '100%').orderBy('id').limit(limit).execute(),
  ref: (r) => ({
    id: Number(r.id),
    userId: Number(r.user_id),
    channelId: Number(r.channel_id),
    upstreamId: r.mj_id ?? '',
    quota: Number(r.quota),
    // Drawing tasks keep milliseconds.
    submittedAtMs: Number(r.submit_time),
    failReason: r.fail_reason ?? '',
    requestId: r.request_id ?? '',
  }),
  async writeIfOpen(trx, row, patch) {
    // Only a task that is still open moves: a task another poller already finished stays as it is.
    const r = await trx.updateTable('midjourneys').set({ ...patch, code: 1 }).where('id', '=', row.id).where('progress', '!=', '100%').executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
};
