import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { OutboundError } from '../../net/guarded-fetch.js';
import { fetchMedia } from '../../net/media-fetch.js';
import { MJ_NOT_FOUND, MJ_SYSTEM, MjError } from './mj-action.js';

type Deps = Pick<AppContext, 'db' | 'options'>;

const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
const IMAGE_TIMEOUT_MS = 30_000;

/**
 * With MjForwardUrlEnabled, task images are served from this gateway (`/mj/image/{id}`, plus
 * `?rand=` until the task is done so a client sees each new preview): the upstream's URL (often a
 * loopback or private proxy address, or a CDN the client cannot reach) stays server-side.
 */
export function forwardedImageUrl(ctx: Pick<Deps, 'options'>, mjId: string, imageUrl: string, done: boolean): string {
  if (!imageUrl || !ctx.options.bool('MjForwardUrlEnabled')) return imageUrl;
  const base = ctx.options.str('ServerAddress').replace(/\/+$/, '');
  return `${base}/mj/image/${encodeURIComponent(mjId)}${done ? '' : `?rand=${Date.now()}`}`;
}

export function withForwardUrl(ctx: Pick<Deps, 'options'>, task: Record<string, unknown>): Record<string, unknown> {
  return { ...task, imageUrl: forwardedImageUrl(ctx, String(task.id), String(task.imageUrl ?? ''), task.progress === '100%') };
}

/** Fetches a task's image through the SSRF-guarded client (size and time capped) and sends it on. */
export async function forwardImage(ctx: Deps, mjId: string, reply: FastifyReply): Promise<void> {
  if (!ctx.options.bool('MjForwardUrlEnabled')) throw new MjError(404, MJ_NOT_FOUND, 'image forwarding is off (MjForwardUrlEnabled)');
  const row = await ctx.db.db.selectFrom('midjourneys').select(['image_url']).where('mj_id', '=', mjId).executeTakeFirst();
  if (!row?.image_url) throw new MjError(404, MJ_NOT_FOUND, `task_not_found: ${mjId}`);
  let res;
  try {
    res = await fetchMedia(ctx.options, row.image_url, { maxBytes: IMAGE_MAX_BYTES, timeoutMs: IMAGE_TIMEOUT_MS, headers: { accept: 'image/*' } });
  } catch (err) {
    if (err instanceof OutboundError) throw new MjError(502, MJ_SYSTEM, `image fetch refused: ${err.message}`);
    throw err;
  }
  if (res.status !== 200) throw new MjError(502, MJ_SYSTEM, `image fetch answered ${res.status}`);
  const type = res.headers['content-type'];
  const contentType = typeof type === 'string' && type.startsWith('image/') ? type : 'application/octet-stream';
  await reply.code(200).header('content-type', contentType).header('cache-control', 'public, max-age=600').send(res.body);
}
