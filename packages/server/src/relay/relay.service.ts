import { langFromHeader } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { request as undiciRequest } from 'undici';
import type { AppContext } from '../context.js';
import { adapterFor } from './adapters/registry.js';
import type { RelayMode, UpstreamError } from './adapters/types.js';
import { usesMaxCompletionTokens } from './billing/output-caps.js';
import { imageQuota, priceFor, usageQuota, type PricingTables } from './billing/pricing.js';
import type { RuntimeChannel } from './channel-cache.js';
import { localError, RelayError } from './relay-error.js';
import { parseRelayInput } from './request-parse.js';
import type { Attempt, Run } from './relay-run.js';
import { meterAllows, reserve } from './relay-reserve.js';
import { settle } from './relay-settle.js';
import { pumpSse, SSE_HEADERS } from './stream-relay.js';
import { assertModelAllowed, requestAuth } from './token-auth.js';
import { isRetryable, mapStatus, shouldDisableChannel } from './upstream.js';
import { bufferedUsage, countedStreamUsage } from './usage-count.js';


let seq = 0;
/** Random per process, so ids from different nodes (or restarts) never collide. */
const NODE_TAG = randomBytes(5).toString('hex');
/** Sortable and unique across nodes: time, a per-process counter and the process tag. */
export function newRequestId(): string {
  seq = (seq + 1) % 0x1000000;
  return `${Date.now().toString(36)}${seq.toString(36).padStart(5, '0')}${NODE_TAG}`;
}

export function pricingTables(ctx: AppContext): PricingTables {
  const o = ctx.options;
  return {
    modelRatio: o.json<Record<string, number>>('ModelRatio', {}),
    completionRatio: o.json<Record<string, number>>('CompletionRatio', {}),
    modelPrice: o.json<Record<string, number>>('ModelPrice', {}),
    groupRatio: o.json<Record<string, number>>('GroupRatio', {}),
    quotaPerUnit: o.num('QuotaPerUnit'),
  };
}

/**
 * Headers of a reply written on the raw socket (after hijack): what the route's onRequest hook and
 * relay() set through fastify, which a hijacked reply no longer applies.
 */
function rawHeaders(requestId: string, extra: Record<string, string | number>): Record<string, string | number> {
  return { 'access-control-allow-origin': '*', 'x-oneapi-request-id': requestId, ...extra };
}

function sendError(run: Pick<Run, 'reply' | 'requestId'>, err: RelayError, withRequestId: boolean): void {
  const body = JSON.stringify(err.toBody(withRequestId ? ` (request id: ${run.requestId})` : ''));
  const { reply } = run;
  if (!reply.sent && !reply.raw.headersSent && !(reply as { hijacked?: boolean }).hijacked) {
    void reply.code(err.status).header('content-type', 'application/json').send(body);
    return;
  }
  const raw = reply.raw;
  if (raw.destroyed || raw.writableEnded) return;
  if (!raw.headersSent) raw.writeHead(err.status, rawHeaders(run.requestId, { 'content-type': 'application/json' }));
  raw.end(raw.headersSent && raw.getHeader('content-type') === 'application/json' ? body : undefined);
}

/** Entry point of every `/v1` relay route. */
export async function relay(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, mode: RelayMode, pathModel?: string): Promise<void> {
  const requestId = newRequestId();
  reply.header('x-oneapi-request-id', requestId);
  const lang = langFromHeader(req.headers['accept-language']);
  try {
    // Authenticated by the relay gate before the body was read (relay-gate.ts).
    const auth = await requestAuth(ctx, req, lang);
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const input = parseRelayInput(mode, raw, String(req.headers['content-type'] ?? ''), pathModel);
    assertModelAllowed(auth, input.model, lang);
    await ctx.relay.channels.ensure();
    const first = auth.pinned ?? ctx.relay.channels.select(auth.group, input.model, new Set());
    if (!first) throw localError(lang, 503, 'RELAY_NO_CHANNEL', { errorCode: 'model_not_found', detail: `${auth.group} / ${input.model}` });
    const price = priceFor(input.model, auth.group, pricingTables(ctx));
    const run: Run = { ctx, req, reply, lang, requestId, startedAt: Date.now(), auth, input, price, reserved: 0, used: [] };
    await reserve(run);
    await attemptLoop(run, first);
  } catch (err) {
    if (err instanceof RelayError) return sendError({ reply, requestId }, err, false);
    req.log.error({ err }, 'relay failed');
    sendError({ reply, requestId }, new RelayError(500, 'new_api_error', 'internal_error', 'internal error'), true);
  }
}

async function attemptLoop(run: Run, first: RuntimeChannel): Promise<void> {
  const { ctx } = run;
  const tried = new Set<number>();
  const retries = run.auth.pinned ? 0 : Math.max(0, Math.floor(ctx.options.num('RetryTimes')));
  let ch: RuntimeChannel | undefined = first;
  for (let i = 0; ch; i++) {
    tried.add(ch.id);
    run.used.push(ch.id);
    let result: Attempt;
    try {
      result = await attemptOnce(run, ch);
    } catch (err) {
      await ctx.relay.ledger.release(run.requestId).catch(() => false);
      throw err;
    }
    if (result.ok) return;
    run.req.log.warn({ channel: ch.id, status: result.error.status, code: result.error.code }, `relay error (channel #${ch.id}, status code: ${result.error.status})`);
    if (result.upstream && ch.autoBan && ctx.options.bool('AutomaticDisableChannelEnabled') && shouldDisableChannel(result.upstream, ch.type)) {
      await ctx.relay.autoDisableChannel(ch.id, result.upstream.message.slice(0, 500)).catch((err: unknown) => run.req.log.error({ err }, 'auto-disable failed'));
    }
    const clientGone = run.reply.raw.destroyed && !run.reply.raw.writableEnded;
    const next = result.retryable && i < retries && !clientGone ? ctx.relay.channels.select(run.auth.group, run.input.model, tried) : undefined;
    if (!next) {
      // Every channel failed: nothing was delivered, so nothing is charged.
      await ctx.relay.ledger.release(run.requestId);
      const e = result.error;
      const final =
        e.status === 429 ? new RelayError(429, e.type, e.code, localError(run.lang, 429, 'RELAY_UPSTREAM_SATURATED').message, e.param, false) : e;
      sendError(run, final, true);
      return;
    }
    ch = next;
  }
}

/**
 * The upstream's error message as the client may see it: a rejected-credentials message names the
 * channel's key (OpenAI echoes a masked form), so it is replaced; any literal key is blanked.
 */
export function clientSafeMessage(message: string, status: number, key: string): string {
  if ((status === 401 || status === 403) && /key|token|credential|auth/i.test(message)) {
    return `the upstream rejected the channel's credentials (status ${status})`;
  }
  return key && key.length >= 8 ? message.split(key).join('***') : message;
}

function failure(status: number, type: string, code: string | null, message: string, retryable: boolean, upstream?: UpstreamError): Attempt {
  return { ok: false, error: new RelayError(status, type, code, message, upstream?.param ?? null, false), retryable, upstream };
}

/** Builds the upstream body: the client's bytes unless model mapping or the adapter must change something. */
function upstreamPayload(run: Run, ch: RuntimeChannel, upstreamModel: string, streamOptions: boolean, prepare: (b: Record<string, unknown>) => boolean): Buffer | string {
  const { input } = run;
  if (!input.body) {
    if (upstreamModel === input.model || !input.multipartModel) return input.raw;
    const { start, end } = input.multipartModel;
    return Buffer.concat([input.raw.subarray(0, start), Buffer.from(upstreamModel), input.raw.subarray(end)]);
  }
  const body = { ...input.body };
  let changed = false;
  if (upstreamModel !== input.model) {
    body.model = upstreamModel;
    changed = true;
  }
  if (input.stream) {
    if (streamOptions) {
      const so = (body.stream_options ?? {}) as Record<string, unknown>;
      if (so.include_usage !== true) {
        body.stream_options = { ...so, include_usage: true };
        changed = true;
      }
    } else if (body.stream_options !== undefined) {
      delete body.stream_options;
      changed = true;
    }
  }
  if (run.maxTokensOverride !== undefined && (input.mode === 'chat' || input.mode === 'completions')) {
    // A clamped reservation: ask for no more than it pays for (docs/ledger.md, spend limits).
    const field = input.mode === 'chat' && (body.max_completion_tokens !== undefined || usesMaxCompletionTokens(upstreamModel)) ? 'max_completion_tokens' : 'max_tokens';
    if (field === 'max_completion_tokens') delete body.max_tokens;
    body[field] = run.maxTokensOverride;
    changed = true;
  }
  if (prepare(body)) changed = true;
  void ch;
  return changed ? JSON.stringify(body) : input.raw;
}

async function attemptOnce(run: Run, ch: RuntimeChannel): Promise<Attempt> {
  const { ctx, input, reply } = run;
  const adapter = adapterFor(ch.type);
  if (!adapter || !adapter.modes.has(input.mode)) {
    return failure(501, 'new_api_error', 'channel_unsupported', `${localError(run.lang, 501, 'RELAY_UNSUPPORTED').message} (channel #${ch.id})`, true);
  }
  const upstreamModel = ch.modelMapping?.[input.model] ?? input.model;
  const payload = upstreamPayload(run, ch, upstreamModel, adapter.streamOptions, (b) => adapter.prepareBody(b, input.mode, upstreamModel));
  const headers: Record<string, string> = {
    'content-type': input.body ? 'application/json' : input.contentType,
    accept: input.stream ? 'text/event-stream' : String(run.req.headers.accept ?? 'application/json'),
    ...adapter.headers(ch.target, input.mode),
  };
  // Only streamed replies are cut off when the client leaves; a buffered reply runs to the end.
  const abort = input.stream || input.mode === 'speech' ? new AbortController() : undefined;
  let res: Awaited<ReturnType<typeof undiciRequest>>;
  const sentAt = Date.now();
  try {
    res = await undiciRequest(adapter.url(ch.target, input.mode, upstreamModel), {
      method: 'POST',
      headers,
      body: payload,
      dispatcher: ctx.relay.agent,
      signal: abort?.signal,
      headersTimeout: input.stream ? ctx.relay.streamHeadersTimeoutMs : undefined,
    });
  } catch (err) {
    run.req.log.warn({ err, channel: ch.id }, 'upstream request failed');
    if ((err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT') {
      // Nothing reached the client yet, so another channel can still answer: retryable, unlike an upstream 504.
      return failure(504, 'new_api_error', 'upstream_timeout', `${localError(run.lang, 504, 'RELAY_UPSTREAM_FAILED').message} (first byte timeout)`, true);
    }
    return failure(500, 'new_api_error', 'do_request_failed', localError(run.lang, 500, 'RELAY_UPSTREAM_FAILED').message, isRetryable(500, ch.type));
  }
  const status = res.statusCode;
  if (status < 200 || status >= 300) {
    const text = await res.body.text().catch(() => '');
    const ue = adapter.parseError(status, text);
    const mapped = mapStatus(status, ch.statusCodeMapping);
    const judged = { ...ue, status: mapped };
    return failure(mapped, ue.type, ue.code, clientSafeMessage(ue.message, status, ch.target.key), isRetryable(mapped, ch.type), judged);
  }
  const contentType = String(res.headers['content-type'] ?? '');
  if (abort && input.stream && contentType.includes('text/event-stream')) return relayStream(run, ch, res.body, abort, sentAt);
  if (abort && input.mode === 'speech') return relayBinary(run, ch, res.body, contentType, abort, sentAt);

  let buf: Buffer;
  try {
    buf = Buffer.from(await res.body.arrayBuffer());
  } catch {
    return failure(500, 'new_api_error', 'read_response_body_failed', localError(run.lang, 500, 'RELAY_UPSTREAM_FAILED').message, true);
  }
  let json: Record<string, unknown> | undefined;
  if (buf.length && (contentType.includes('json') || buf[0] === 0x7b)) {
    try {
      json = JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
  }
  if (json && json.error && typeof json.error === 'object') {
    // A 200 that carries an error object (some OpenAI-compatible vendors): a failure, not a reply.
    const ue = adapter.parseError(500, buf.toString('utf8'));
    return failure(500, ue.type, ue.code, ue.message, true, ue);
  }
  const usage = await bufferedUsage(input, json, buf);
  const charge = input.mode === 'images' ? imageQuota(run.price, input.image!) : usageQuota(run.price, usage);
  await settle(run, ch, usage, charge, -1000, Date.now() - sentAt);
  // Written on the raw socket: fastify's send path (onSend hooks, serialiser checks) has nothing
  // to add to bytes that are already final, and this also answers after an earlier attempt hijacked.
  hijack(run);
  const raw = reply.raw;
  if (!raw.destroyed) {
    raw.writeHead(status, rawHeaders(run.requestId, { 'content-type': contentType || 'application/json', 'content-length': buf.length }));
    raw.end(buf);
  }
  return { ok: true };
}

function hijack(run: Run): void {
  if (!(run.reply as { hijacked?: boolean }).hijacked) run.reply.hijack();
}

/** Streams: events pass through as they come; the bill is settled before `[DONE]` goes out. */
async function relayStream(run: Run, ch: RuntimeChannel, body: AsyncIterable<Buffer>, abort: AbortController, sentAt: number): Promise<Attempt> {
  hijack(run);
  const raw = run.reply.raw;
  let gone = false;
  const onClose = () => {
    if (!raw.writableFinished) {
      gone = true;
      abort.abort();
    }
  };
  raw.on('close', onClose);
  const writeHead = () => {
    if (!raw.headersSent) raw.writeHead(200, rawHeaders(run.requestId, SSE_HEADERS));
  };
  const out = await pumpSse(body, raw, {
    startedAt: run.startedAt,
    clientWantsUsage: run.input.clientWantsUsage,
    writeHead,
    clientGone: () => gone,
    meter: run.meter ? (text) => meterAllows(run, text) : undefined,
  });
  // Spend limit reached: stop reading the upstream (it is still generating and would bill us).
  if (out.broken === 'limit') abort.abort();
  if (out.broken === 'upstream' && out.forwarded === 0) {
    raw.off('close', onClose);
    return failure(502, 'new_api_error', 'stream_broken', 'the upstream closed the stream before sending data', true);
  }
  // Billing rule for broken streams (docs/relay-billing.md): what the upstream reported, else
  // the prompt plus the completion text that was actually forwarded.
  const usage = out.usage ?? (await countedStreamUsage(run.input, out.completionText, out.maxToolCalls));
  const charge = usageQuota(run.price, usage);
  await settle(run, ch, usage, charge, out.firstEventMs, Date.now() - sentAt);
  raw.off('close', onClose);
  if (gone || raw.destroyed) return { ok: true };
  writeHead();
  if (run.input.clientWantsUsage && !out.usage) {
    const chunk = {
      id: out.meta.id || `chatcmpl-${run.requestId}`,
      object: run.input.mode === 'chat' ? 'chat.completion.chunk' : 'text_completion',
      created: out.meta.created || Math.floor(Date.now() / 1000),
      model: out.meta.model || run.input.model,
      choices: [],
      usage: { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens },
    };
    raw.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  if (out.broken === 'upstream') {
    const err = { error: { message: `the upstream stream broke off (request id: ${run.requestId})`, type: 'new_api_error', param: null, code: 'stream_broken' } };
    raw.end(`data: ${JSON.stringify(err)}\n\n`);
  } else if (out.broken === 'limit') {
    const message = `${localError(run.lang, 403, 'RELAY_SPEND_LIMIT_REACHED').message} (request id: ${run.requestId})`;
    raw.end(`data: ${JSON.stringify({ error: { message, type: 'insufficient_quota', param: null, code: 'insufficient_quota' } })}\n\n`);
  } else {
    raw.end('data: [DONE]\n\n');
  }
  return { ok: true };
}

/** Binary replies (speech): bytes pass through; the bill (known up front) is settled before the end. */
async function relayBinary(run: Run, ch: RuntimeChannel, body: AsyncIterable<Buffer>, contentType: string, abort: AbortController, sentAt: number): Promise<Attempt> {
  hijack(run);
  const raw = run.reply.raw;
  const onClose = () => {
    if (!raw.writableFinished) abort.abort();
  };
  raw.on('close', onClose);
  raw.writeHead(200, rawHeaders(run.requestId, { 'content-type': contentType || 'application/octet-stream' }));
  let broken = false;
  try {
    for await (const chunk of body) {
      if (!raw.write(chunk)) await new Promise<void>((r) => { raw.once('drain', r); raw.once('close', r); });
    }
  } catch {
    broken = true;
  }
  const usage = await bufferedUsage(run.input, undefined, Buffer.alloc(0));
  await settle(run, ch, usage, usageQuota(run.price, usage), -1000, Date.now() - sentAt);
  raw.off('close', onClose);
  if (broken) raw.destroy();
  else raw.end();
  return { ok: true };
}
