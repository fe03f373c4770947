import { createHmac, randomBytes } from 'node:crypto';
import { serverMessage, type Lang } from '@modelgate/shared';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { safeEqual } from '../../crypto/safe-equal.js';
import { outboundAllowList } from '../../net/address-policy.js';
import { guardedFetch } from '../../net/guarded-fetch.js';
import { httpUrl, mjTaskJson, notifyBindingOf, type NotifyBinding } from '../../modules/tasks/mj-store.js';
import { midjourneyTaskAdapter as kind } from '../adapters/midjourney/task-adapter.js';
import { applyTaskItem } from '../tasks/task-settle.js';
import { invalid, MJ_NOT_FOUND, MjError, type MjReplyBody } from './mj-action.js';
import { withForwardUrl } from './mj-image.js';

type Deps = Pick<AppContext, 'db' | 'options' | 'relay' | 'quotaLedger' | 'secrets'>;

/**
 * `/mj/notify` (issue 29). The reference takes any update from anyone holding the task's API key,
 * so a user could set their own task's image to an SVG of their choosing and status to SUCCESS.
 * Now, with MjNotifyEnabled, the proxy is handed this gateway's own callback URL per task —
 * `/mj/notify?user=&channel=&nonce=&sig=`, an HMAC under the server's key ring — and only a post
 * to that URL updates that one task. The client's own notifyHook is kept with the task and called
 * by this server (SSRF-guarded) with the gateway's view of the task, so the proxy never learns it
 * and never calls out to an address a user chose.
 */
const PURPOSE = 'mj.notify';
const HOOK_MAX = 2048;
const FORWARD_TIMEOUT_MS = 10_000;
const FORWARD_MAX_BYTES = 64 * 1024;
const CONFIRM_TIMEOUT_MS = 15_000;

/** What a signed callback URL vouches for: one submit of one user on one channel. */
export interface NotifyClaim {
  userId: number;
  channelId: number;
  nonce: string;
}

const mac = (key: Buffer, c: NotifyClaim): string => createHmac('sha256', key).update(`${c.userId}.${c.channelId}.${c.nonce}`).digest('base64url');

/** The callback URL handed to the proxy with one submit; null while MjNotifyEnabled is off or ServerAddress is not an http(s) URL. */
export function signedHook(ctx: Pick<Deps, 'options' | 'secrets'>, userId: number, channelId: number): { url: string; nonce: string } | null {
  if (!ctx.options.bool('MjNotifyEnabled')) return null;
  const base = httpUrl(ctx.options.str('ServerAddress').trim())?.replace(/\/+$/, '');
  if (!base) return null;
  const nonce = randomBytes(12).toString('base64url');
  const sig = mac(ctx.secrets.macKeys(PURPOSE)[0]!, { userId, channelId, nonce });
  const query = new URLSearchParams({ user: String(userId), channel: String(channelId), nonce, sig });
  return { url: `${base}/mj/notify?${query.toString()}`, nonce };
}

/** The claim of a callback URL whose signature holds under any configured key; else null. */
export function verifiedClaim(ctx: Pick<Deps, 'secrets'>, query: unknown): NotifyClaim | null {
  const q = (query ?? {}) as Record<string, unknown>;
  const [user, channel, nonce, sig] = [q.user, q.channel, q.nonce, q.sig];
  if (typeof user !== 'string' || typeof channel !== 'string' || typeof nonce !== 'string' || typeof sig !== 'string') return null;
  if (!/^[1-9]\d{0,15}$/.test(user) || !/^[1-9]\d{0,15}$/.test(channel) || !/^[\w-]{1,64}$/.test(nonce)) return null;
  const claim = { userId: Number(user), channelId: Number(channel), nonce };
  return ctx.secrets.macKeys(PURPOSE).some((key) => safeEqual(sig, mac(key, claim))) ? claim : null;
}

/** An unsigned or wrongly signed notify: refused before its body is read, whoever sends it. */
export function unsignedNotify(lang: Lang): Error & { statusCode: number } {
  return Object.assign(new Error(serverMessage('MJ_NOTIFY_UNSIGNED', lang)), { statusCode: 400 });
}

/** The client's notifyHook, checked before anything is charged: empty, or an http(s) URL. */
export function clientHookOf(body: Record<string, unknown>, lang: Lang): string {
  const v = body.notifyHook;
  if (v === undefined || v === null || v === '') return '';
  const url = typeof v === 'string' && v.length <= HOOK_MAX ? httpUrl(v) : null;
  if (!url) throw invalid(serverMessage('MJ_NOTIFY_HOOK_INVALID', lang));
  return url;
}

/**
 * A signed notify: the proxy's word on the task it was handed this URL for. Progress, the image
 * (http(s) only, see mj-store.ts), buttons and a success are applied. A failure is not taken from
 * the post — it refunds the charge, and the URL travels through the proxy (its task JSON and logs
 * may show it) — it is asked of the upstream at once with the channel's key, as the poller would.
 */
export async function applySignedNotify(ctx: Deps, claim: NotifyClaim, body: Record<string, unknown>, log: FastifyBaseLogger): Promise<MjReplyBody> {
  const db = ctx.db.db;
  const mjId = typeof body.id === 'string' ? body.id : '';
  const rows = mjId ? await db.selectFrom('midjourneys').selectAll().where('mj_id', '=', mjId).where('user_id', '=', claim.userId).where('channel_id', '=', claim.channelId).execute() : [];
  const row = rows.find((r) => notifyBindingOf(r)?.nonce === claim.nonce);
  if (!row) throw new MjError(404, MJ_NOT_FOUND, `task_not_found: ${mjId || '(empty)'}`);
  const binding = notifyBindingOf(row)!;
  const { failReason, ...reported } = body;
  const failure = reported.status === 'FAILURE' || (typeof failReason === 'string' && failReason !== '' && reported.progress !== '100%');
  if (reported.status === 'FAILURE') delete reported.status;
  let changed = (await applyTaskItem(ctx, kind, row, reported)).changed;
  if (failure) changed = (await confirmWithUpstream(ctx, Number(row.id), log)) || changed;
  if (changed && binding.hook) forwardToClient(ctx, Number(row.id), binding, log);
  return { code: 1, description: 'success', result: mjId };
}

/** Asks the task's channel for the task and applies its answer (a failure refunds once); false when it cannot be asked. */
async function confirmWithUpstream(ctx: Deps, rowId: number, log: FastifyBaseLogger): Promise<boolean> {
  const row = await ctx.db.db.selectFrom('midjourneys').selectAll().where('id', '=', rowId).executeTakeFirst();
  if (!row || row.progress === '100%') return false;
  await ctx.relay.channels.ensure();
  const ch = ctx.relay.channels.get(Number(row.channel_id));
  // The poller fails tasks whose channel is gone; nothing to ask here.
  if (!ch || !kind.types.includes(ch.type)) return false;
  const items = await kind.fetchMany(ch.target, [row.mj_id], CONFIRM_TIMEOUT_MS).catch((err: unknown) => {
    log.warn({ err, mjId: row.mj_id }, 'midjourney notify: the upstream could not confirm a failure');
    return null;
  });
  const item = items?.find((it) => (it as { id?: unknown } | null)?.id === row.mj_id) as Record<string, unknown> | undefined;
  return item ? (await applyTaskItem(ctx, kind, row, item)).changed : false;
}

/** Calls the client's notifyHook with the task as `/mj/task/{id}/fetch` shows it; off the proxy's request. */
function forwardToClient(ctx: Deps, rowId: number, binding: NotifyBinding, log: FastifyBaseLogger): void {
  void (async () => {
    const row = await ctx.db.db.selectFrom('midjourneys').selectAll().where('id', '=', rowId).executeTakeFirstOrThrow();
    const body = JSON.stringify(withForwardUrl(ctx, mjTaskJson(row)));
    await guardedFetch(binding.hook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      maxBytes: FORWARD_MAX_BYTES,
      timeoutMs: FORWARD_TIMEOUT_MS,
      allow: outboundAllowList(ctx.options),
    });
  })().catch((err: unknown) => log.warn({ err, rowId }, 'midjourney notify: the client notifyHook could not be called'));
}
