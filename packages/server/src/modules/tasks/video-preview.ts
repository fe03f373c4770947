import { createHmac } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { safeEqual } from '../../crypto/safe-equal.js';

const PURPOSE = 'video.preview';
/** How long a preview link the task list hands out stays good. */
export const PREVIEW_TTL_SEC = 6 * 60 * 60;

type Deps = Pick<AppContext, 'secrets'>;

const mac = (key: Buffer, taskId: string, exp: number) => createHmac('sha256', key).update(`${taskId}.${exp}`).digest('base64url');

/**
 * The console's preview link of a finished video (`/api/task/{id}/content?exp=&sig=`): a `<video>`
 * element sends the session cookie but not the console's `New-Api-User` header, so the link carries
 * its own proof instead — an HMAC under the server's key ring over the task id and an expiry, handed
 * out only by the task lists (own tasks, or every task for admins).
 */
export function previewUrl(ctx: Deps, taskId: string, now = Math.floor(Date.now() / 1000)): string {
  const exp = now + PREVIEW_TTL_SEC;
  const sig = mac(ctx.secrets.macKeys(PURPOSE)[0]!, taskId, exp);
  return `/api/task/${encodeURIComponent(taskId)}/content?${new URLSearchParams({ exp: String(exp), sig }).toString()}`;
}

/** Whether a preview link's signature holds for this task under any configured key, and it has not expired. */
export function previewValid(ctx: Deps, taskId: string, query: unknown, now = Math.floor(Date.now() / 1000)): boolean {
  const q = (query ?? {}) as Record<string, unknown>;
  if (typeof q.exp !== 'string' || typeof q.sig !== 'string' || !/^\d{1,12}$/.test(q.exp)) return false;
  const exp = Number(q.exp);
  if (exp < now) return false;
  const sig = q.sig;
  return ctx.secrets.macKeys(PURPOSE).some((key) => safeEqual(sig, mac(key, taskId, exp)));
}
