import { Readable } from 'node:stream';
import type { Lang } from '@modelgate/shared';
import type { FastifyReply } from 'fastify';
import type { Dispatcher } from 'undici';
import type { AppContext } from '../../context.js';
import type { TaskRow } from '../../modules/tasks/task-store.js';
import type { ChannelTarget } from '../adapters/types.js';
import { videoProps, videoStatusOf } from '../../modules/tasks/video-store.js';
import { outboundAllowList } from '../../net/address-policy.js';
import { checkedUrl, OutboundError, redirectTarget } from '../../net/guarded-fetch.js';
import { UpstreamGuard } from '../../net/upstream-guard.js';
import { RelayError } from '../relay-error.js';
import { createUpstreamAgent, sendUpstream } from '../upstream.js';
import { loadVideoProviders } from './video-registry.js';
import { videoError } from './video-request.js';
import type { VideoSource } from './video-types.js';

type Deps = Pick<AppContext, 'options' | 'relay' | 'log'>;

/** The largest video passed on, and how long one download may take in all. */
export const VIDEO_MAX_BYTES = 512 * 1024 * 1024;
const DOWNLOAD_MS = 10 * 60 * 1000;
const SOURCE_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 3;

/**
 * An upstream's video is never served as an active document from the console's origin: nothing in
 * it may run, load, be framed or submit (docs/security.md), and its type is the one its bytes show.
 */
export const VIDEO_CSP = "default-src 'none'; sandbox";

/** The container a body's first bytes show (ISO-BMFF `ftyp` or Matroska/WebM's EBML header); null for anything else. */
export function videoContainerOf(head: Buffer): { type: string; ext: string } | null {
  if (head.length >= 12 && head.subarray(4, 8).toString('latin1') === 'ftyp') {
    return head.subarray(8, 12).toString('latin1') === 'qt  ' ? { type: 'video/quicktime', ext: 'mov' } : { type: 'video/mp4', ext: 'mp4' };
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return { type: 'video/webm', ext: 'webm' };
  return null;
}

/**
 * The dispatcher for URLs an upstream handed out: every connection goes through the SSRF guard
 * (the operator's OutboundAllowedRanges the only exception), whoever placed the channel — the URL
 * came in an upstream's answer, not from the administrator. Streams, unlike the buffering
 * guarded client, so a video of hundreds of megabytes is never held in memory.
 */
let publicPool: { dispatcher: Dispatcher; guard: UpstreamGuard } | undefined;
function publicDispatcher(ctx: Deps): Dispatcher {
  if (!publicPool) {
    const guard = new UpstreamGuard();
    guard.onRefused = (host, address) => ctx.log.warn({ host, address }, 'video download refused by the outbound guard');
    publicPool = { dispatcher: createUpstreamAgent(60, 60, guard), guard };
  }
  publicPool.guard.allow = () => outboundAllowList(ctx.options);
  return publicPool.dispatcher;
}

const fail = (lang: Lang, reason: string) => new RelayError(502, 'upstream_error', 'video_content_failed', videoError(lang, 502, 'VIDEO_CONTENT_FAILED', { reason }).message, null, false);

interface Opened {
  status: number;
  length: number | undefined;
  body: AsyncIterable<Buffer>;
}

async function drain(body: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of body) {
    // discarded: a redirect's body
  }
}

/** GETs `source`, following redirects through the guard (credentials never sent to another origin). */
async function open(ctx: Deps, target: ChannelTarget, source: Exclude<VideoSource, { kind: 'bytes' }>, signal: AbortSignal, lang: Lang): Promise<Opened> {
  let url = checkedUrl(source.kind === 'public' ? source.url : source.url);
  let headers: Record<string, string> = { accept: 'video/*, application/octet-stream;q=0.9, */*;q=0.1', ...(source.kind === 'channel' ? source.headers : {}) };
  let dispatcher = source.kind === 'channel' ? ctx.relay.dispatcherFor(target) : publicDispatcher(ctx);
  for (let hop = 0; ; hop++) {
    const res = await sendUpstream(url.toString(), { method: 'GET', headers, dispatcher, signal, headersTimeout: 60_000 });
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
      await drain(res.body).catch(() => undefined);
      if (hop >= MAX_REDIRECTS) throw fail(lang, `more than ${MAX_REDIRECTS} redirects`);
      const next = redirectTarget(url, location);
      // The channel's key stays with the channel's host; what a redirect leads to is reached through the guard.
      if (next.origin !== url.origin) {
        headers = { accept: headers.accept! };
        dispatcher = publicDispatcher(ctx);
      }
      url = next;
      continue;
    }
    const declared = Number(res.headers['content-length']);
    return { status: res.statusCode, length: Number.isFinite(declared) && declared >= 0 ? declared : undefined, body: res.body as AsyncIterable<Buffer> };
  }
}

/** The first `n` bytes of a stream (fewer if it ends), and the rest of it. */
async function head(body: AsyncIterable<Buffer>, n: number): Promise<{ first: Buffer; rest: AsyncIterator<Buffer> }> {
  const it = body[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let size = 0;
  while (size < n) {
    const r = await it.next();
    if (r.done) break;
    const b = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value as Uint8Array);
    parts.push(b);
    size += b.length;
  }
  return { first: Buffer.concat(parts), rest: it };
}

function fileName(id: string, ext: string): string {
  return `${id.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64) || 'video'}.${ext}`;
}

function safeHeaders(reply: FastifyReply, id: string, found: { type: string; ext: string } | null): FastifyReply {
  const type = found?.type ?? 'application/octet-stream';
  const disposition = found ? 'inline' : 'attachment';
  return reply
    .header('content-type', type)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', VIDEO_CSP)
    .header('content-disposition', `${disposition}; filename="${fileName(id, found?.ext ?? 'bin')}"`)
    .header('cache-control', 'private, max-age=300');
}

/**
 * Sends a finished task's video from this gateway: its provider says where the bytes are (asking
 * its upstream again for a fresh URL when the stored one expires), they are fetched through the
 * channel's pool with its credentials or, for a URL an upstream gave, through the SSRF guard, and
 * streamed on capped in size. A body that is not a video container goes out as a download.
 */
export async function sendVideoContent(ctx: Deps, reply: FastifyReply, row: TaskRow, lang: Lang): Promise<FastifyReply> {
  if (row.status !== 'SUCCESS') throw videoError(lang, 404, 'VIDEO_NOT_READY', { status: row.status || 'SUBMITTED' });
  await ctx.relay.channels.ensure();
  const ch = ctx.relay.channels.get(Number(row.channel_id));
  const provider = ch ? (await loadVideoProviders()).get(ch.type) : undefined;
  if (!ch || !provider) throw fail(lang, `channel #${row.channel_id} no longer exists`);
  const upstreamId = videoProps(row).upstream_id;
  let source: VideoSource;
  try {
    source = await provider.source(ch.target, upstreamId, videoStatusOf(row), SOURCE_TIMEOUT_MS);
  } catch (err) {
    throw fail(lang, (err as Error).message.slice(0, 300));
  }
  if (source.kind === 'bytes') return safeHeaders(reply.code(200), row.task_id, videoContainerOf(source.data)).send(source.data);
  const signal = AbortSignal.timeout(DOWNLOAD_MS);
  let opened: Opened;
  try {
    opened = await open(ctx, ch.target, source, signal, lang);
  } catch (err) {
    if (err instanceof RelayError) throw err;
    const reason = err instanceof OutboundError || (err as { code?: string }).code === 'ERR_UPSTREAM_TARGET_REFUSED' ? (err as Error).message : `the upstream could not be reached (${(err as { code?: string }).code ?? (err as Error).message})`;
    throw fail(lang, reason);
  }
  if (opened.status !== 200) {
    await drain(opened.body).catch(() => undefined);
    throw fail(lang, `the upstream answered ${opened.status}`);
  }
  if (opened.length !== undefined && opened.length > VIDEO_MAX_BYTES) {
    (opened.body as unknown as { destroy?: () => void }).destroy?.();
    throw fail(lang, `the video is larger than ${VIDEO_MAX_BYTES} bytes`);
  }
  const { first, rest } = await head(opened.body, 16).catch((err: unknown) => {
    throw fail(lang, (err as Error).message);
  });
  async function* body(): AsyncGenerator<Buffer> {
    let size = first.length;
    if (first.length) yield first;
    for (;;) {
      const r = await rest.next();
      if (r.done) return;
      size += r.value.length;
      // Headers are out by now: a body over the cap is cut, and the client sees a truncated download.
      if (size > VIDEO_MAX_BYTES) throw new Error('video larger than the cap');
      yield r.value;
    }
  }
  safeHeaders(reply.code(200), row.task_id, videoContainerOf(first));
  if (opened.length !== undefined) reply.header('content-length', String(opened.length));
  return reply.send(Readable.from(body()));
}
