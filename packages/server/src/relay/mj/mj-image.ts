import { relayLangFromHeader, serverMessage } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { OutboundError } from '../../net/guarded-fetch.js';
import { fetchMedia } from '../../net/media-fetch.js';
import { MJ_NOT_FOUND, MJ_SYSTEM, MjError } from './mj-action.js';

type Deps = Pick<AppContext, 'db' | 'options'>;

const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
const IMAGE_TIMEOUT_MS = 30_000;

/**
 * An image answer is a document when opened on its own (a link in a chat, an admin's new tab):
 * nothing in it may run or load, and it may not be framed, submit forms or navigate.
 */
export const IMAGE_CSP = "default-src 'none'; sandbox";

/** Raster formats browsers render inertly, with how their bytes begin (WHATWG MIME Sniffing §6.1). */
const RASTER: ReadonlyArray<{ type: string; ext: string; sniff: (b: Buffer) => boolean }> = [
  { type: 'image/png', ext: 'png', sniff: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/jpeg', ext: 'jpg', sniff: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', ext: 'gif', sniff: (b) => /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1')) },
  { type: 'image/webp', ext: 'webp', sniff: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
  { type: 'image/avif', ext: 'avif', sniff: isAvif },
  // "BM" alone begins ordinary text too: the DIB header that follows has one of a few known sizes.
  { type: 'image/bmp', ext: 'bmp', sniff: (b) => b.length >= 18 && b[0] === 0x42 && b[1] === 0x4d && [12, 40, 52, 56, 64, 108, 124].includes(b.readUInt32LE(14)) },
];

/** Labels upstreams use for the same formats. */
const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/x-png': 'image/png', 'image/x-ms-bmp': 'image/bmp', 'image/x-bmp': 'image/bmp' };

/** An ISO-BMFF `ftyp` box whose major or a compatible brand is AVIF. */
function isAvif(b: Buffer): boolean {
  if (b.length < 16 || b.subarray(4, 8).toString('latin1') !== 'ftyp') return false;
  const size = Math.min(b.readUInt32BE(0), b.length, 64);
  for (let i = 8; i + 4 <= size; i += 4) {
    const brand = b.subarray(i, i + 4).toString('latin1');
    if (brand === 'avif' || brand === 'avis') return true;
  }
  return false;
}

/**
 * The raster format a body is, when its label and its bytes both say raster; else null (SVG,
 * HTML, XML, a script or a PDF, however labelled). The bytes decide the type sent on.
 */
export function rasterOf(label: unknown, body: Buffer): { type: string; ext: string } | null {
  const declared = String(Array.isArray(label) ? label[0] : (label ?? '')).split(';')[0]!.trim().toLowerCase();
  const named = ALIASES[declared] ?? declared;
  if (!RASTER.some((r) => r.type === named)) return null;
  const found = RASTER.find((r) => r.sniff(body));
  return found ? { type: found.type, ext: found.ext } : null;
}

/** A file name that needs no quoting or escaping in Content-Disposition. */
function fileName(mjId: string, ext: string): string {
  const base = mjId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64) || 'image';
  return `${base}.${ext}`;
}

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

/**
 * Fetches a task's image through the SSRF-guarded client (size and time capped) and sends it on
 * from this origin. Only raster images pass, checked by label and by their first bytes: an SVG or
 * HTML page would run its scripts here with the console's cookies (issue 29). What passes still
 * goes out sandboxed and unsniffable, named as a file.
 */
export async function forwardImage(ctx: Deps, req: FastifyRequest, mjId: string, reply: FastifyReply): Promise<void> {
  if (!ctx.options.bool('MjForwardUrlEnabled')) throw new MjError(404, MJ_NOT_FOUND, 'image forwarding is off (MjForwardUrlEnabled)');
  const row = await ctx.db.db.selectFrom('midjourneys').select(['image_url']).where('mj_id', '=', mjId).executeTakeFirst();
  if (!row?.image_url) throw new MjError(404, MJ_NOT_FOUND, `task_not_found: ${mjId}`);
  let res;
  try {
    // Rows stored before image URLs were checked may hold any scheme: the guarded client fetches http(s) only.
    res = await fetchMedia(ctx.options, row.image_url, { maxBytes: IMAGE_MAX_BYTES, timeoutMs: IMAGE_TIMEOUT_MS, headers: { accept: 'image/*' } });
  } catch (err) {
    if (err instanceof OutboundError) throw new MjError(502, MJ_SYSTEM, `image fetch refused: ${err.message}`);
    throw err;
  }
  if (res.status !== 200) throw new MjError(502, MJ_SYSTEM, `image fetch answered ${res.status}`);
  const raster = rasterOf(res.headers['content-type'], res.body);
  if (!raster) throw new MjError(502, MJ_SYSTEM, serverMessage('MJ_IMAGE_NOT_RASTER', relayLangFromHeader(req.headers['accept-language'])));
  await reply
    .code(200)
    .header('content-type', raster.type)
    .header('content-security-policy', IMAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', `inline; filename="${fileName(mjId, raster.ext)}"`)
    .header('cache-control', 'public, max-age=600')
    .send(res.body);
}
