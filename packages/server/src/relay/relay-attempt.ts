import { serverMessage, type Lang } from '@modelgate/shared';
import { adapterFor } from './adapters/registry.js';
import type { Adapter, UpstreamCall, UpstreamRequest } from './adapters/types.js';
import { imageQuota, usageQuota } from './billing/pricing.js';
import type { RuntimeChannel } from './channel-cache.js';
import { withChunkUsageNull, withMessageRefusal } from './formats/openai-chat/stream.js';
import type { ConvertContext } from './formats/types.js';
import { outboundAllowList } from '../net/address-policy.js';
import { fetchInlineImage } from './inline-image.js';
import { localError } from './relay-error.js';
import { hijack, rawHeaders } from './relay-reply.js';
import { failure, noteLogOther, type Attempt, type Run } from './relay-run.js';
import { settle } from './relay-settle.js';
import { binaryReply, screenAllows, streamReply } from './stream-reply.js';
import { completionScreen } from './sensitive/sensitive-filter.js';
import { exchange, type UpstreamBuffered, type UpstreamFailed } from './upstream-client.js';
import { bufferedUsage } from './usage-count.js';

/**
 * The upstream's error message as the client may see it: a rejected-credentials message names the
 * channel's key (OpenAI echoes a masked form), so it is replaced; any literal key is blanked.
 */
export function clientSafeMessage(message: string, status: number, key: string, lang: Lang): string {
  if ((status === 401 || status === 403) && /key|token|credential|auth/i.test(message)) {
    return serverMessage('RELAY_UPSTREAM_CREDENTIALS', lang).replace('{status}', String(status));
  }
  return key && key.length >= 8 ? message.split(key).join('***') : message;
}

function convertContext(run: Run, model: string): ConvertContext {
  const { input } = run;
  return {
    lang: run.lang,
    model,
    callerModel: input.model,
    clientWantsUsage: input.clientWantsUsage,
    requestId: run.requestId,
    stream: input.stream,
    jsonArray: input.jsonArray,
    callerBody: input.body,
    fetchImage: (url, field) => fetchInlineImage(run.ctx, run.lang, url, field),
    dropped: [],
  };
}

/**
 * What this attempt's conversion left out (docs/providers.md "Conversion policy"): the
 * `x-modelgate-dropped` header of the reply (set on the raw response, so both fastify's and a
 * hijacked reply's writeHead carry it; each attempt replaces an earlier one's) and the log's
 * `other.dropped`.
 */
function noteDropped(run: Run, dropped: string[] | undefined): void {
  const raw = run.reply.raw;
  const list = dropped ?? [];
  if (!raw.headersSent) {
    if (list.length) raw.setHeader('x-modelgate-dropped', list.join(','));
    else raw.removeHeader('x-modelgate-dropped');
  }
  noteLogOther(run, 'dropped', list.length ? list : undefined);
}

/** What one attempt sends: the channel's adapter, the call it sees and the conversion context. */
interface AttemptPlan {
  adapter: Adapter;
  call: UpstreamCall;
  cx: ConvertContext;
}

/** Step 1: the adapter and upstream format for this channel, or the 501 of a channel that cannot serve the request. */
function plan(run: Run, ch: RuntimeChannel): AttemptPlan | Attempt {
  const { ctx, input } = run;
  const adapter = adapterFor(ch.type);
  const model = ch.modelMapping?.[input.model] ?? input.model;
  const upstream = adapter?.upstreamFormat(input.mode, input.format, model);
  if (!adapter || !upstream) {
    return failure(501, 'new_api_error', 'channel_unsupported', `${localError(run.lang, 501, 'RELAY_UNSUPPORTED', { detail: input.mode }).message} (channel #${ch.id})`, true);
  }
  const call: UpstreamCall = { ch: ch.target, mode: input.mode, inbound: input.format, upstream, model, stream: input.stream, clientHeaders: run.req.headers, userId: run.auth.user.id, outboundAllow: () => outboundAllowList(ctx.options) };
  return { adapter, call, cx: convertContext(run, model) };
}

/** Step 2: the upstream request (converted, capped); a request the upstream format cannot express is refused here (a local 400, never retried). */
async function build(run: Run, p: AttemptPlan): Promise<UpstreamRequest> {
  const { input } = run;
  const built = await p.adapter.buildRequest(p.call, { body: input.body, raw: input.raw, contentType: input.contentType, multipartModel: input.multipartModel, callerModel: input.model, maxTokens: run.maxTokensOverride, refuseBelow: run.clampRefusal, cx: p.cx });
  noteDropped(run, p.cx.dropped);
  return built;
}

/** A failed exchange as the attempt's failure: the client sees the upstream's words with the channel's key never in them. */
function failed(run: Run, ch: RuntimeChannel, f: UpstreamFailed): Attempt {
  if (f.stage === 'transport') run.req.log.warn({ err: f.cause, channel: ch.id }, 'upstream request failed');
  const e = f.error;
  // The status the upstream refused with; an error inside a 200 (Baidu, Tencent) by the status its code names.
  const refusedWith = f.upstreamStatus >= 400 ? f.upstreamStatus : e.status;
  return failure(e.status, e.type, e.code, clientSafeMessage(e.message, refusedWith, ch.target.key, run.lang), e.retryable, e);
}

/** The adapter's stream transformer, its chunks completed to OpenAI's schema for a chat caller (`usage: null` before the usage chunk). */
function callerStream(p: AttemptPlan) {
  const t = p.adapter.streamTransformer(p.call, p.cx);
  return p.call.inbound === 'openai-chat' ? { ...t, writer: withChunkUsageNull(t.writer, p.cx) } : t;
}

/** Step 4 (a reply read whole): screened, billed, then written on the raw socket as the caller's format. */
async function answerBuffered(run: Run, ch: RuntimeChannel, p: AttemptPlan, got: UpstreamBuffered): Promise<Attempt> {
  const { ctx, input } = run;
  const { json, buf, contentType, sentAt } = got;
  const reply = json ? p.adapter.convertResponse(p.call, json, p.cx) : undefined;
  const screen = reply && completionScreen(ctx.options);
  if (screen && !screenAllows(run, screen, reply.text())) {
    // Withheld, so not delivered and not charged (docs/relay-billing.md "Sensitive answers").
    const words = (run.logOther?.sensitive_words as string[]).join(',');
    return failure(400, 'new_api_error', 'sensitive_words_detected', serverMessage('RELAY_SENSITIVE_COMPLETION', run.lang).replace('{words}', words), false);
  }
  const usage = await bufferedUsage(input, json, buf, reply);
  if (reply?.body && !reply.usage) reply.withUsage?.(usage);
  const charge = input.image ? imageQuota(run.price, input.image) : usageQuota(run.price, usage);
  await settle(run, ch, usage, charge, -1000, Date.now() - sentAt);
  // A converted chat completion is completed to OpenAI's schema (a vendor converter may omit `refusal`).
  const out = reply?.body ? Buffer.from(JSON.stringify(p.call.inbound === 'openai-chat' ? withMessageRefusal(reply.body) : reply.body)) : buf;
  // Written on the raw socket: fastify's send path (onSend hooks, serialiser checks) has nothing
  // to add to bytes that are already final, and this also answers after an earlier attempt hijacked.
  hijack(run.reply);
  const raw = run.reply.raw;
  if (!raw.destroyed) {
    raw.writeHead(got.status, rawHeaders(run.requestId, { 'content-type': reply?.body ? 'application/json' : contentType || 'application/json', 'content-length': out.length }));
    raw.end(out);
  }
  return { ok: true };
}

/**
 * One attempt on one channel: plan, build, exchange through the upstream client (signing, pool,
 * time limits, error reading, one retry with a fresh credential), then answer the caller with the
 * stream, the bytes or the converted reply.
 */
export async function attemptOnce(run: Run, ch: RuntimeChannel): Promise<Attempt> {
  const { ctx, input } = run;
  const p = plan(run, ch);
  if (!('adapter' in p)) return p;
  const built = await build(run, p);
  // Only streamed replies are cut off when the client leaves; a buffered reply runs to the end.
  const passThrough = input.stream || input.mode === 'speech';
  const abort = new AbortController();
  const relayTimeoutMs = ctx.config.relayTimeoutSec * 1000;
  // A caller who leaves before the upstream's first byte: the call is cancelled now, not once it answers
  // (the upstream would otherwise go on generating, at the operator's cost, for nobody).
  const raw = run.reply.raw;
  const gone = passThrough ? () => raw.writableEnded || abort.abort() : undefined;
  if (gone) raw.once('close', gone);
  const got = await exchange(built, {
    pools: ctx.relay,
    adapter: p.adapter,
    call: p.call,
    statusMapping: ch.statusCodeMapping,
    headers: { 'content-type': input.body ? 'application/json' : input.contentType, accept: input.stream ? 'text/event-stream' : String(run.req.headers.accept ?? 'application/json') },
    signal: passThrough ? abort.signal : undefined,
    firstByteTimeoutMs: input.stream ? (ctx.relay.streamHeadersTimeoutMs ?? relayTimeoutMs) : relayTimeoutMs,
    idleTimeoutMs: ctx.config.streamingTimeoutSec * 1000,
    unread: (contentType) => (input.stream && p.adapter.isStreamReply(contentType)) || input.mode === 'speech',
    lang: run.lang,
    onAnswer: (status, ms) => ctx.relay.observer.upstreamAnswered({ channel: ch.id, status, ms }),
    onStaleCredentials: (e) => run.req.log.info({ channel: ch.id, code: e.code }, `channel #${ch.id}: credential refused, retrying with a fresh one`),
  }).finally(() => gone && raw.off('close', gone));
  if (!got.ok) return failed(run, ch, got);
  if (got.kind === 'unread') {
    if (input.stream && p.adapter.isStreamReply(got.contentType)) return streamReply(run, ch, got.body, abort, got.sentAt, callerStream(p), (s) => p.adapter.retryable(s));
    return binaryReply(run, ch, got.body, got.contentType, abort, got.sentAt);
  }
  return answerBuffered(run, ch, p, got);
}
