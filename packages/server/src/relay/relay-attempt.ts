import { serverMessage, type Lang } from '@modelgate/shared';
import { request as undiciRequest } from 'undici';
import { adapterFor } from './adapters/registry.js';
import { SigningError, type FollowUpReply, type TransportReply, type UpstreamCall, type UpstreamRequest } from './adapters/types.js';
import { imageQuota, usageQuota } from './billing/pricing.js';
import type { RuntimeChannel } from './channel-cache.js';
import type { ConvertContext } from './formats/types.js';
import { outboundAllowList } from '../net/address-policy.js';
import { fetchInlineImage } from './inline-image.js';
import { localError } from './relay-error.js';
import { hijack, rawHeaders } from './relay-reply.js';
import { failure, noteLogOther, type Attempt, type Run } from './relay-run.js';
import { settle } from './relay-settle.js';
import { relayBinary, relayStream, screenAllows } from './relay-stream.js';
import { completionScreen } from './sensitive/sensitive-filter.js';
import { mapStatus, readBody } from './upstream.js';
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

/** A GET of an adapter's follow-up (task polling) through the channel's pool; never throws. */
async function followUpGet(run: Run, ch: RuntimeChannel, url: string, headers: Record<string, string>): Promise<FollowUpReply> {
  try {
    const res = await undiciRequest(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, dispatcher: run.ctx.relay.dispatcherFor(ch.target) });
    const text = await res.body.text();
    let json: Record<string, unknown> | undefined;
    try {
      const v = JSON.parse(text) as unknown;
      json = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, json, text };
  } catch (err) {
    return { status: 0, json: undefined, text: (err as Error).message };
  }
}

/** One attempt on one channel: build (and sign) the adapter's request, forward, read the reply back. */
export async function attemptOnce(run: Run, ch: RuntimeChannel): Promise<Attempt> {
  const { ctx, input } = run;
  const adapter = adapterFor(ch.type);
  const model = ch.modelMapping?.[input.model] ?? input.model;
  const upstream = adapter?.upstreamFormat(input.mode, input.format, model);
  if (!adapter || !upstream) {
    return failure(501, 'new_api_error', 'channel_unsupported', `${localError(run.lang, 501, 'RELAY_UNSUPPORTED', { detail: input.mode }).message} (channel #${ch.id})`, true);
  }
  const call: UpstreamCall = { ch: ch.target, mode: input.mode, inbound: input.format, upstream, model, stream: input.stream, clientHeaders: run.req.headers, userId: run.auth.user.id, outboundAllow: () => outboundAllowList(ctx.options) };
  const cx = convertContext(run, model);
  // A request the upstream format cannot express is refused here (a local 400, never retried).
  const built = await adapter.buildRequest(call, { body: input.body, raw: input.raw, contentType: input.contentType, multipartModel: input.multipartModel, callerModel: input.model, maxTokens: run.maxTokensOverride, refuseBelow: run.clampRefusal, cx });
  noteDropped(run, cx.dropped);
  let signed: UpstreamRequest;
  try {
    signed = await adapter.sign(built, call);
  } catch (err) {
    if (!(err instanceof SigningError)) throw err;
    // Credentials that cannot sign (a refused token exchange): the provider's message, its own retry and disable judgement.
    const ue = err.upstream;
    return failure(ue.status, ue.type, ue.code, clientSafeMessage(ue.message, ue.status, ch.target.key, run.lang), ue.retryable, ue);
  }
  const headers: Record<string, string> = {
    'content-type': input.body ? 'application/json' : input.contentType,
    accept: input.stream ? 'text/event-stream' : String(run.req.headers.accept ?? 'application/json'),
    ...signed.headers,
  };
  // Only streamed replies are cut off when the client leaves; a buffered reply runs to the end.
  const abort = input.stream || input.mode === 'speech' ? new AbortController() : undefined;
  let res: TransportReply;
  const sentAt = Date.now();
  try {
    // An adapter with its own transport (a WebSocket upstream) answers HTTP-shaped; everything below reads both alike.
    res = adapter.transport
      ? await adapter.transport(signed, call, {
          signal: abort?.signal,
          firstFrameTimeoutMs: input.stream ? (ctx.relay.streamHeadersTimeoutMs ?? ctx.config.relayTimeoutSec * 1000) : ctx.config.relayTimeoutSec * 1000,
          idleTimeoutMs: ctx.config.streamingTimeoutSec * 1000,
        })
      : await undiciRequest(signed.url, {
          method: 'POST',
          headers,
          body: signed.body,
          dispatcher: ctx.relay.dispatcherFor(ch.target),
          signal: abort?.signal,
          headersTimeout: input.stream ? ctx.relay.streamHeadersTimeoutMs : undefined,
        });
  } catch (err) {
    run.req.log.warn({ err, channel: ch.id }, 'upstream request failed');
    if ((err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT') {
      // Nothing reached the client yet, so another channel can still answer: retryable, unlike an upstream 504.
      return failure(504, 'new_api_error', 'upstream_timeout', `${localError(run.lang, 504, 'RELAY_UPSTREAM_FAILED').message} (first byte timeout)`, true);
    }
    return failure(500, 'new_api_error', 'do_request_failed', localError(run.lang, 500, 'RELAY_UPSTREAM_FAILED').message, adapter.retryable(500));
  }
  const status = res.statusCode;
  ctx.relay.observer.upstreamAnswered({ channel: ch.id, status, ms: Date.now() - sentAt });
  if (status < 200 || status >= 300) {
    const text = await readBody(res.body).then((b) => b.toString('utf8'), () => '');
    const ue = adapter.classifyError(mapStatus(status, ch.statusCodeMapping), status, text, res.headers);
    return failure(ue.status, ue.type, ue.code, clientSafeMessage(ue.message, status, ch.target.key, run.lang), ue.retryable, ue);
  }
  const contentType = String(res.headers['content-type'] ?? '');
  if (abort && input.stream && adapter.isStreamReply(contentType)) return relayStream(run, ch, res.body, abort, sentAt, adapter.streamTransformer(call, cx), (s) => adapter.retryable(s));
  if (abort && input.mode === 'speech') return relayBinary(run, ch, res.body, contentType, abort, sentAt);

  let buf: Buffer;
  try {
    buf = await readBody(res.body);
  } catch {
    return failure(500, 'new_api_error', 'read_response_body_failed', localError(run.lang, 500, 'RELAY_UPSTREAM_FAILED').message, true);
  }
  let json: Record<string, unknown> | undefined;
  if (buf.length && (contentType.includes('json') || buf[0] === 0x7b)) {
    try {
      const v = JSON.parse(buf.toString('utf8')) as unknown;
      json = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      json = undefined;
    }
  }
  if (json && adapter.followUp && !adapter.isErrorReply(call, json)) {
    // The reply only started the work (an async task): the adapter polls until the final one.
    json = await adapter.followUp(call, json, (url, h) => followUpGet(run, ch, url, h));
    buf = Buffer.from(JSON.stringify(json));
  }
  if (json && adapter.isErrorReply(call, json)) {
    // A 200 that carries an error object (some OpenAI-compatible vendors): a failure, not a reply.
    // The adapter's reading decides the status, retry and auto-disable (MiniMax's base_resp codes).
    const ue = adapter.classifyError(500, 500, buf.toString('utf8'));
    return failure(ue.status, ue.type, ue.code, ue.message, ue.retryable, ue);
  }
  const reply = json ? adapter.convertResponse(call, json, cx) : undefined;
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
  const out = reply?.body ? Buffer.from(JSON.stringify(reply.body)) : buf;
  // Written on the raw socket: fastify's send path (onSend hooks, serialiser checks) has nothing
  // to add to bytes that are already final, and this also answers after an earlier attempt hijacked.
  hijack(run.reply);
  const raw = run.reply.raw;
  if (!raw.destroyed) {
    raw.writeHead(status, rawHeaders(run.requestId, { 'content-type': reply?.body ? 'application/json' : contentType || 'application/json', 'content-length': out.length }));
    raw.end(out);
  }
  return { ok: true };
}
