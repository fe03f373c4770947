import { isHttpUrl, LogType } from '@modelgate/shared';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.js';
import type { MidjourneysTable } from '../../db/schema.js';
import { recordLog } from '../logs/log-writer.js';

export type MjRow = Selectable<MidjourneysTable>;
type Deps = Pick<AppContext, 'db' | 'quotaLedger'>;

/** What an upstream task (a list-by-condition item or a notify body) says about a task. */
export interface MjUpdate {
  progress?: unknown;
  promptEn?: unknown;
  state?: unknown;
  submitTime?: unknown;
  startTime?: unknown;
  finishTime?: unknown;
  imageUrl?: unknown;
  status?: unknown;
  failReason?: unknown;
  properties?: unknown;
  buttons?: unknown;
}

const text = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);
const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isSafeInteger(v) ? v : fallback);
const json = (v: unknown, fallback: string): string => (v && typeof v === 'object' ? JSON.stringify(v) : fallback);

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

/**
 * Applies what the upstream says about a task. A task that failed (FAILURE, or a fail reason before
 * it finished) ends at 100 % and its charge goes back to the user — through the ledger, with the
 * task as the refund's unique ref, in the same transaction as the row: however many pollers,
 * notifications or nodes see the failure, the user is refunded exactly once. Returns whether this
 * call refunded.
 */
export async function applyMjUpdate(ctx: Deps, stored: MjRow, u: MjUpdate): Promise<{ changed: boolean; refunded: boolean }> {
  const row = normalMj(stored);
  const next = {
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
  const failed = next.status === 'FAILURE' || (next.progress !== '100%' && next.fail_reason !== '');
  if (failed) {
    next.status = 'FAILURE';
    next.progress = '100%';
  } else if (next.status === 'SUCCESS') next.progress = '100%';
  const changed = (Object.keys(next) as Array<keyof typeof next>).some((k) => String(next[k]) !== String(row[k]));
  if (!changed) return { changed: false, refunded: false };
  return ctx.db.db.transaction().execute(async (trx) => {
    // Only a task that is still open moves: a task another poller already finished stays as it is.
    const r = await trx.updateTable('midjourneys').set({ ...next, code: 1 }).where('id', '=', row.id).where('progress', '!=', '100%').executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return { changed: false, refunded: false };
    const quota = Number(row.quota);
    if (!failed || quota <= 0) return { changed: true, refunded: false };
    return { changed: true, refunded: await refundMj(ctx, row, quota, trx) };
  });
}

/** Gives a failed task's charge back to its user (once per task: the ledger's unique (kind, ref)). */
async function refundMj(ctx: Deps, row: MjRow, quota: number, trx: Parameters<Deps['quotaLedger']['move']>[1]): Promise<boolean> {
  const moved = await ctx.quotaLedger.move({ kind: 'refund', userId: Number(row.user_id), quota, used: -quota, ref: `mj:${row.id}` }, trx);
  if (moved !== 'applied') return false;
  await recordLog(ctx.db, { userId: Number(row.user_id), type: LogType.System, content: `构图失败 ${row.mj_id}，补偿 ${quota}`, quota }, trx);
  return true;
}

/** Fails a task the upstream can no longer answer for (timed out, its channel gone), with the refund. */
export function failMj(ctx: Deps, row: MjRow, reason: string): Promise<{ changed: boolean; refunded: boolean }> {
  return applyMjUpdate(ctx, row, { status: 'FAILURE', failReason: reason, finishTime: Date.now() });
}
