import type { Lang } from '@modelgate/shared';
import type { Dispatcher } from 'undici';
import { SigningError, type Adapter, type ChannelTarget, type FollowUpReply, type ModelListRequest, type TransportReply, type UpstreamCall, type UpstreamError, type UpstreamRequest } from './adapters/types.js';
import { isObj, parseObject } from './formats/shared/wire.js';
import { localError } from './relay-error.js';
import { mapStatus, readBody, sendUpstream } from './upstream.js';

/**
 * The one way ModelGate talks to a channel's upstream: the relay's attempts, the channel test, the
 * model list and the balance query all go through here, so each gets the same signing (sync or
 * async: SigV4, TC3, JWTs, OAuth tokens), the channel's pool (the guarded one when no root placed
 * its target), time limits, error normalisation (the adapter's reading of the error, HTTP-200 error
 * bodies included) and the stale-credential retry: when the adapter says the credential it cached
 * was refused (Baidu 110/111), it has dropped it, and the exchange is made once more on the same
 * channel with a fresh one before the error is judged.
 */

/** Where a channel's connections go (`RelayServices.dispatcherFor`). */
export interface UpstreamPools {
  dispatcherFor(target: Pick<ChannelTarget, 'guard'> & { setting?: Readonly<Record<string, unknown>> }): Dispatcher;
}

/** How long an exchange may take, and who may stop it. */
export interface ExchangeLimits {
  /** Fires when the caller stops waiting (a streaming client left): the connection is closed. */
  signal?: AbortSignal;
  /** The most the whole exchange may take, ms (probes); absent: no overall cap. */
  timeoutMs?: number;
  /** The most to wait for the reply's headers or first frame, ms (0: none); absent: the pool's RELAY_TIMEOUT. */
  firstByteTimeoutMs?: number;
  /** The most silence between two frames of a `transport` upstream, ms (STREAMING_TIMEOUT). */
  idleTimeoutMs?: number;
}

/** Where an exchange failed. */
export type UpstreamStage = 'sign' | 'transport' | 'status' | 'read' | 'error-reply' | 'not-json';

export interface UpstreamFailed {
  ok: false;
  stage: UpstreamStage;
  /** The failure as the relay answers it: the mapped status, the adapter's reading, retry and disable judgement. */
  error: UpstreamError;
  /** The status the upstream sent; 0 when none came. */
  upstreamStatus: number;
  /** The thrown error underneath a 'sign' or 'transport' failure. */
  cause?: unknown;
  /** The failing reply's body, for logs. */
  text?: string;
}

/** A 2xx reply handed back unread (a stream, speech bytes): the caller reads `body`. */
export interface UpstreamUnread {
  ok: true;
  kind: 'unread';
  status: number;
  contentType: string;
  body: AsyncIterable<Buffer>;
  /** When the request that answered was sent (epoch ms). */
  sentAt: number;
}

/** A 2xx reply read whole: `json` when it is a JSON object, after the adapter's follow-up (an async task's final reply). */
export interface UpstreamBuffered {
  ok: true;
  kind: 'buffered';
  status: number;
  contentType: string;
  buf: Buffer;
  json: Record<string, unknown> | undefined;
  sentAt: number;
}

export interface ExchangeOptions extends ExchangeLimits {
  pools: UpstreamPools;
  adapter: Adapter;
  call: UpstreamCall;
  /** The channel's status_code_mapping: the status a failure is judged and answered with. */
  statusMapping?: Record<string, string> | null;
  /** Content-Type and Accept; the signed request's own headers go over them. */
  headers: Record<string, string>;
  /** A 2xx reply with this content type is handed back unread. */
  unread?: (contentType: string) => boolean;
  lang: Lang;
  /** Told of every HTTP answer (metrics). */
  onAnswer?: (status: number, ms: number) => void;
  /** Told when a refused credential is about to be replaced and the exchange made again. */
  onStaleCredentials?: (error: UpstreamError) => void;
}

const isFailed = (r: { ok: boolean }): r is UpstreamFailed => !r.ok;

/**
 * Runs `attempt`, and once more when it failed on a credential the adapter has just dropped
 * (unless the caller stopped waiting). The retry is this client's: the error handed back has no
 * `staleCredentials` left, so nobody above retries again.
 */
async function withFreshCredential<T extends { ok: true }>(attempt: () => Promise<T | UpstreamFailed>, o: Pick<ExchangeOptions, 'signal' | 'onStaleCredentials'>): Promise<T | UpstreamFailed> {
  let out = await attempt();
  if (isFailed(out) && out.error.staleCredentials && !o.signal?.aborted) {
    o.onStaleCredentials?.(out.error);
    out = await attempt();
  }
  if (isFailed(out) && out.error.staleCredentials) out = { ...out, error: { ...out.error, staleCredentials: false } };
  return out;
}

/** The caller's signal and the overall cap as one signal (undefined when neither applies). */
function limitSignal(o: ExchangeLimits): AbortSignal | undefined {
  const signals = [o.signal, o.timeoutMs ? AbortSignal.timeout(o.timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/** A request that got no answer, as the relay answers it: a time limit is retryable (nothing reached anyone), anything else as a 500. */
function unreachable(err: unknown, adapter: Adapter, o: ExchangeLimits & { lang: Lang }): UpstreamError {
  const e = err as { code?: unknown; name?: unknown };
  const base = { type: 'new_api_error', param: null, disablesChannel: false };
  if (e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.name === 'TimeoutError') {
    const why = e.name === 'TimeoutError' && o.timeoutMs ? `timeout after ${o.timeoutMs / 1000}s` : 'first byte timeout';
    return { ...base, status: 504, code: 'upstream_timeout', message: `${localError(o.lang, 504, 'RELAY_UPSTREAM_FAILED').message} (${why})`, retryable: true };
  }
  return { ...base, status: 500, code: 'do_request_failed', message: localError(o.lang, 500, 'RELAY_UPSTREAM_FAILED').message, retryable: adapter.retryable(500) };
}

/** The adapter's reading of a non-2xx reply, judged on the channel's mapped status. */
async function statusFailure(res: TransportReply, o: Pick<ExchangeOptions, 'adapter' | 'statusMapping'>): Promise<UpstreamFailed> {
  const text = await readBody(res.body).then((b) => b.toString('utf8'), () => '');
  const error = o.adapter.classifyError(mapStatus(res.statusCode, o.statusMapping ?? null), res.statusCode, text, res.headers);
  return { ok: false, stage: 'status', error, upstreamStatus: res.statusCode, text };
}

/** A 200 that carries an error object: the adapter's reading of its code decides status, retry and disabling (a 500 when it names none). */
function errorReply(adapter: Adapter, text: string, status: number): UpstreamFailed {
  return { ok: false, stage: 'error-reply', error: adapter.classifyError(undefined, 500, text), upstreamStatus: status, text };
}

/** POSTs the signed request over the channel's pool, or through the adapter's own transport (a WebSocket upstream). */
function send(signed: UpstreamRequest, o: ExchangeOptions): Promise<TransportReply> {
  const signal = limitSignal(o);
  if (o.adapter.transport) {
    return o.adapter.transport(signed, o.call, { signal, firstFrameTimeoutMs: o.firstByteTimeoutMs ?? o.timeoutMs, idleTimeoutMs: o.idleTimeoutMs });
  }
  return sendUpstream(signed.url, { method: 'POST', headers: { ...o.headers, ...signed.headers }, body: signed.body, dispatcher: o.pools.dispatcherFor(o.call.ch), signal, headersTimeout: o.firstByteTimeoutMs });
}

/** The JSON object of a reply body, when it looks like one. */
function jsonOf(buf: Buffer, contentType: string): Record<string, unknown> | undefined {
  return buf.length && (contentType.includes('json') || buf[0] === 0x7b) ? parseObject(buf.toString('utf8')) : undefined;
}

async function exchangeOnce(built: UpstreamRequest, o: ExchangeOptions): Promise<UpstreamUnread | UpstreamBuffered | UpstreamFailed> {
  const { adapter, call } = o;
  let signed: UpstreamRequest;
  try {
    signed = await adapter.sign(built, call);
  } catch (err) {
    // Credentials that cannot sign (a refused token exchange): the provider's message, its own retry and disable judgement.
    if (err instanceof SigningError) return { ok: false, stage: 'sign', error: err.upstream, upstreamStatus: 0, cause: err };
    throw err;
  }
  const sentAt = Date.now();
  let res: TransportReply;
  try {
    res = await send(signed, o);
  } catch (err) {
    return { ok: false, stage: 'transport', error: unreachable(err, adapter, o), upstreamStatus: 0, cause: err };
  }
  o.onAnswer?.(res.statusCode, Date.now() - sentAt);
  if (res.statusCode < 200 || res.statusCode >= 300) return statusFailure(res, o);
  const contentType = String(res.headers['content-type'] ?? '');
  if (o.unread?.(contentType)) return { ok: true, kind: 'unread', status: res.statusCode, contentType, body: res.body, sentAt };
  let buf: Buffer;
  try {
    buf = await readBody(res.body);
  } catch (err) {
    const error: UpstreamError = { status: 500, type: 'new_api_error', code: 'read_response_body_failed', param: null, message: localError(o.lang, 500, 'RELAY_UPSTREAM_FAILED').message, retryable: true, disablesChannel: false };
    return { ok: false, stage: 'read', error, upstreamStatus: res.statusCode, cause: err };
  }
  let json = jsonOf(buf, contentType);
  if (json && adapter.followUp && !adapter.isErrorReply(call, json)) {
    // The reply only started the work (an async task): the adapter polls until the final one.
    json = await adapter.followUp(call, json, (url, headers) => followUpGet(o.pools, call.ch, url, headers, o.signal));
    buf = Buffer.from(JSON.stringify(json));
  }
  if (json && adapter.isErrorReply(call, json)) return errorReply(adapter, buf.toString('utf8'), res.statusCode);
  return { ok: true, kind: 'buffered', status: res.statusCode, contentType, buf, json, sentAt };
}

/**
 * One exchange of a built request with the channel's upstream: signed, sent, its failure
 * normalised, retried once with a fresh credential when the adapter dropped a refused one.
 */
export function exchange(built: UpstreamRequest, o: ExchangeOptions): Promise<UpstreamUnread | UpstreamBuffered | UpstreamFailed> {
  return withFreshCredential(() => exchangeOnce(built, o), o);
}

/** A GET of an adapter's follow-up (task polling) through the channel's pool; never throws: status 0 says why it failed. */
export async function followUpGet(pools: UpstreamPools, target: Pick<ChannelTarget, 'guard'> & { setting?: Readonly<Record<string, unknown>> }, url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<FollowUpReply> {
  try {
    const res = await sendUpstream(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, dispatcher: pools.dispatcherFor(target), signal });
    const text = (await readBody(res.body)).toString('utf8');
    return { status: res.statusCode, json: parseObject(text), text };
  } catch (err) {
    return { status: 0, json: undefined, text: (err as Error).message };
  }
}

export interface GetChainOptions extends ExchangeLimits {
  pools: UpstreamPools;
  adapter: Adapter;
  target: ChannelTarget;
  statusMapping?: Record<string, string> | null;
  lang: Lang;
  /** The next GET after the JSON replies so far (a model list's next page, a balance's second query); undefined: done. */
  next: (replies: readonly unknown[]) => ModelListRequest | undefined;
  onStaleCredentials?: (error: UpstreamError) => void;
}

/** One GET of a chain: a 200 with a JSON body that is no error object, else a normalised failure. */
async function getJson(req: ModelListRequest, o: GetChainOptions): Promise<{ ok: true; json: unknown } | UpstreamFailed> {
  let res: TransportReply;
  try {
    res = await sendUpstream(req.url, { method: 'GET', headers: { accept: 'application/json', ...req.headers }, dispatcher: o.pools.dispatcherFor(o.target), signal: limitSignal(o), headersTimeout: o.firstByteTimeoutMs });
  } catch (err) {
    return { ok: false, stage: 'transport', error: unreachable(err, o.adapter, o), upstreamStatus: 0, cause: err };
  }
  if (res.statusCode !== 200) return await statusFailure(res, o);
  let text: string;
  try {
    text = (await readBody(res.body)).toString('utf8');
  } catch (err) {
    return { ok: false, stage: 'transport', error: unreachable(err, o.adapter, o), upstreamStatus: res.statusCode, cause: err };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the start of the text: the failure names the stage only.
    return { ok: false, stage: 'not-json', error: { status: 500, type: 'invalid_response', code: null, param: null, message: 'upstream answered with invalid JSON', retryable: true, disablesChannel: false }, upstreamStatus: 200, text };
  }
  if (isObj(json) && json.error) return errorReply(o.adapter, text, 200);
  return { ok: true, json };
}

/**
 * The GETs an adapter declares, one after another (a model list's pages, a balance's queries),
 * each asked for once the replies before it are in. A GET refused for a stale credential is asked
 * for again (the adapter builds it with a fresh one) and made once more.
 */
export async function getChain(o: GetChainOptions): Promise<{ ok: true; replies: unknown[] } | (UpstreamFailed & { url: string })> {
  const replies: unknown[] = [];
  for (let next = o.next(replies); next; next = o.next(replies)) {
    const first = next;
    let sent: ModelListRequest | undefined;
    const got = await withFreshCredential(() => {
      // The retry asks the adapter again: a request built from a credential it dropped is not resent.
      const req = sent ? (o.next(replies) ?? first) : first;
      sent = req;
      return getJson(req, o);
    }, o);
    if (isFailed(got)) return { ...got, url: (sent ?? first).url };
    replies.push(got.json);
  }
  return { ok: true, replies };
}
