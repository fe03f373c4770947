import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { relayLangFromHeader, type Lang } from '@modelgate/shared';
import type { ApiRouteKey } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { RelayContext } from '../relay-context.js';
import { adapterFor } from '../adapters/registry.js';
import { SigningError, type UpstreamCall } from '../adapters/types.js';
import { priceFor } from '../billing/pricing.js';
import type { RuntimeChannel } from '../channel-cache.js';
import { fastifySchema } from '../../http/schema.js';
import { clientSafeMessage } from '../relay-attempt.js';
import { localError, RelayError } from '../relay-error.js';
import { sendError } from '../relay-reply.js';
import { assertPriced, pricingTables } from '../relay.service.js';
import { assertModelAllowed, requestAuth, type RelayAuth } from '../token-auth.js';
import { mapStatus } from '../upstream.js';
import { RealtimeBilling } from './realtime-billing.js';
import { DRAIN_DEADLINE_MS, MAX_SESSION_MS, RealtimePipe } from './realtime-session.js';

/**
 * `GET /v1/realtime?model=` — the Realtime API over a WebSocket (docs/providers.md#realtime).
 * An upgrade request is routed through fastify like any relay request, so the relay gate
 * authenticates it (Bearer, or the browser subprotocol `openai-insecure-api-key.<token>`) and
 * every refusal is an ordinary HTTP answer in OpenAI's error shape before anything is upgraded.
 * The upstream (OpenAI or Azure, per the channel's adapter) is dialled first; only once it is open
 * is the client upgraded, with the `realtime` subprotocol.
 */
const PATH = '/v1/realtime';
const KEY_PROTOCOL = 'openai-insecure-api-key.';
const HANDSHAKE_TIMEOUT_MS = 15_000;

interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
}

const upgrades = new WeakMap<IncomingMessage, PendingUpgrade>();

function offeredProtocols(req: IncomingMessage): string[] {
  return String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/** Routes `/v1/realtime` upgrade requests through fastify; any other upgrade is refused. */
export function installRealtimeUpgrade(app: FastifyInstance): void {
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    // Browsers cannot set headers on a WebSocket: the key rides in the subprotocol list.
    const key = offeredProtocols(req).find((p) => p.startsWith(KEY_PROTOCOL));
    if (!req.headers.authorization && key) req.headers.authorization = `Bearer ${key.slice(KEY_PROTOCOL.length)}`;
    // Nothing else listens on the socket until the upgrade completes: a reset must not become an uncaught error.
    socket.on('error', () => socket.destroy());
    upgrades.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.assignSocket(socket as unknown as import('node:net').Socket);
    // An answer instead of an upgrade (a refusal) ends the connection once written.
    res.once('finish', () => {
      if (upgrades.has(req)) socket.end();
    });
    app.routing(req, res);
  });
}

/**
 * The client-facing WebSocket server of one app. A client frame (or message) may be as large as a
 * `/v1` JSON body and no larger (MAX_REQUEST_BODY_MB): ws refuses a bigger one from its header,
 * before any of its payload is buffered, and closes with 1009.
 */
function clientServer(ctx: RelayContext): WebSocketServer {
  return new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: ctx.config.bodyLimits.relayJson,
    handleProtocols: (offered) => (offered.has('realtime') ? 'realtime' : false),
  });
}

/**
 * Sockets one token holds open are slots in the rate-limit store (Redis across nodes when
 * configured): a slot is given back when its session's last ledger outcome is written, and
 * expires by itself (a node that died holding it) only after the longest a session can last.
 */
const SOCKET_SLOT_TTL_MS = MAX_SESSION_MS + DRAIN_DEADLINE_MS + 60_000;
const socketsKey = (tokenId: number) => `RT:${tokenId}`;

/** Takes one of the token's realtime socket slots; the 429 when all are taken; the function that gives it back. */
async function takeSocketSlot(ctx: RelayContext, req: FastifyRequest, auth: RelayAuth, lang: Lang): Promise<() => void> {
  const limit = ctx.config.realtimeMaxSocketsPerToken;
  if (limit <= 0) return () => undefined;
  const store = ctx.rateLimitStore;
  const key = socketsKey(auth.token.id);
  if (!(await store.acquireSlot(key, req.id, limit, SOCKET_SLOT_TTL_MS, Date.now()))) {
    const err = localError(lang, 429, 'RELAY_REALTIME_SOCKETS_LIMITED', { errorCode: 'rate_limit_exceeded', detail: String(limit) });
    err.retryAfterSec = 1;
    throw err;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    void Promise.resolve(store.releaseSlot(key, req.id)).catch((err: unknown) => req.log.warn({ err }, 'could not release a realtime socket slot; it expires by itself'));
  };
}

type Dialled = { ok: true; ws: WebSocket; early: Array<[RawData, boolean]> } | { ok: false; error: RelayError; retryable: boolean };

/** Opens the upstream socket of one channel; its refusal classified by the adapter, as an HTTP reply would be. */
async function dial(ctx: RelayContext, req: FastifyRequest, lang: Lang, ch: RuntimeChannel, model: string): Promise<Dialled> {
  const adapter = adapterFor(ch.type);
  if (!adapter?.modes.has('realtime')) {
    return { ok: false, error: localError(lang, 501, 'RELAY_UNSUPPORTED', { errorCode: 'channel_unsupported', detail: `realtime (channel #${ch.id})` }), retryable: true };
  }
  const upstreamModel = ch.modelMapping?.[model] ?? model;
  const call: UpstreamCall = { ch: ch.target, mode: 'realtime', inbound: 'openai-realtime', upstream: 'openai-realtime', model: upstreamModel, stream: true, clientHeaders: req.headers };
  const cx = { lang, model: upstreamModel, callerModel: model, clientWantsUsage: false, requestId: req.id, stream: true };
  let url: string;
  let headers: Record<string, string>;
  try {
    const signed = await adapter.sign(await adapter.buildRequest(call, { body: null, raw: Buffer.alloc(0), contentType: '', callerModel: model, cx }), call);
    url = signed.url.replace(/^http/, 'ws');
    headers = { ...signed.headers, 'openai-beta': 'realtime=v1' };
  } catch (err) {
    if (!(err instanceof SigningError)) throw err;
    const ue = err.upstream;
    return { ok: false, error: new RelayError(ue.status, ue.type, ue.code, clientSafeMessage(ue.message, ue.status, ch.target.key, lang), ue.param), retryable: ue.retryable };
  }
  // A channel whose target no root placed dials through its guard's checked lookup; node skips a
  // lookup for an IP literal, so the guard judges one in the URL first (refused as the usual failure).
  try {
    ch.target.guard?.assertUrl(url);
  } catch {
    return { ok: false, error: localError(lang, 502, 'RELAY_UPSTREAM_FAILED', { errorCode: 'do_request_failed' }), retryable: true };
  }
  return new Promise<Dialled>((resolve) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS, lookup: ch.target.guard?.lookup });
    // Frames that came in the same read as the handshake are emitted before 'open' is seen by a promise: held for the pipe.
    const early: Array<[RawData, boolean]> = [];
    ws.on('message', (data, isBinary) => early.push([data, isBinary]));
    ws.once('open', () => resolve({ ok: true, ws, early }));
    ws.once('unexpected-response', (_r, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const status = res.statusCode ?? 502;
        const ue = adapter.classifyError(mapStatus(status, ch.statusCodeMapping), status, Buffer.concat(chunks).toString('utf8'), res.headers);
        resolve({ ok: false, error: new RelayError(ue.status, ue.type, ue.code, clientSafeMessage(ue.message, status, ch.target.key, lang), ue.param), retryable: ue.retryable });
      });
      res.on('error', () => resolve({ ok: false, error: localError(lang, 502, 'RELAY_UPSTREAM_FAILED'), retryable: true }));
    });
    ws.once('error', (err) => {
      req.log.warn({ err, channel: ch.id }, 'realtime upstream dial failed');
      resolve({ ok: false, error: localError(lang, 502, 'RELAY_UPSTREAM_FAILED', { errorCode: 'do_request_failed' }), retryable: true });
    });
  });
}

async function openSession(ctx: RelayContext, wss: WebSocketServer, req: FastifyRequest, reply: FastifyReply, lang: Lang): Promise<void> {
  const pending = upgrades.get(req.raw);
  if (!pending) throw localError(lang, 426, 'RELAY_REALTIME_UPGRADE_REQUIRED', { type: 'invalid_request_error', errorCode: 'upgrade_required' });
  const auth = await requestAuth(ctx, req, lang);
  const model = String((req.query as { model?: unknown }).model ?? '').trim();
  if (!model) throw new RelayError(400, 'invalid_request_error', 'missing_model', 'model is required', 'model');
  assertModelAllowed(auth, model, lang);
  const releaseSlot = await takeSocketSlot(ctx, req, auth, lang);
  let piped = false;
  try {
    piped = await pipeSession(ctx, wss, req, reply, lang, pending, auth, model, releaseSlot);
  } finally {
    if (!piped) releaseSlot();
  }
}

/** Dials the upstream and upgrades the client; true once the pipe owns the session (and its slot). */
async function pipeSession(
  ctx: RelayContext,
  wss: WebSocketServer,
  req: FastifyRequest,
  reply: FastifyReply,
  lang: Lang,
  pending: PendingUpgrade,
  auth: RelayAuth,
  model: string,
  releaseSlot: () => void,
): Promise<boolean> {
  await ctx.relay.channels.ensure();
  const tried = new Set<number>();
  let ch = auth.pinned ?? ctx.relay.channels.select(auth.group, model, tried);
  if (!ch) throw localError(lang, 503, 'RELAY_NO_CHANNEL', { errorCode: 'model_not_found', detail: `${auth.group} / ${model}` });
  const price = priceFor(model, auth.group, pricingTables(ctx));
  assertPriced(ctx, price, lang);
  const billing = new RealtimeBilling(ctx, req, reply, lang, auth, model, price);
  const refusal = await billing.reserveNext();
  if (refusal) throw refusal;
  const retries = auth.pinned ? 0 : Math.max(0, Math.floor(ctx.options.num('RetryTimes')));
  let dialled: Dialled | undefined;
  try {
    for (let i = 0; ch; i++) {
      tried.add(ch.id);
      dialled = await dial(ctx, req, lang, ch, model);
      if (dialled.ok || !dialled.retryable || i >= retries) break;
      const next: RuntimeChannel | undefined = ctx.relay.channels.select(auth.group, model, tried);
      if (!next) break;
      ch = next;
    }
  } catch (err) {
    await billing.release();
    throw err;
  }
  if (!dialled?.ok || !ch) {
    await billing.release();
    throw dialled && !dialled.ok ? dialled.error : localError(lang, 502, 'RELAY_UPSTREAM_FAILED');
  }
  reply.hijack();
  upgrades.delete(req.raw);
  if (pending.socket.destroyed || !pending.socket.writable) {
    // The caller left while the upstream was dialled: nothing was used.
    dialled.ws.close(1000);
    await billing.release();
    return false;
  }
  const pipe = new RealtimePipe(dialled.ws, ch, billing, req.id, lang, req.log, dialled.early, releaseSlot);
  // ws answers a malformed upgrade itself (400) without calling back: the pipe must still end.
  pending.socket.once('close', () => pipe.socketClosed());
  wss.handleUpgrade(req.raw, pending.socket, pending.head, (client) => pipe.attach(client));
  return true;
}

export function realtimeRoutes(scope: FastifyInstance, ctx: RelayContext): void {
  const wss = clientServer(ctx);
  scope.get(PATH, { schema: fastifySchema(`GET ${PATH}` as ApiRouteKey) }, async (req, reply) => {
    const lang = relayLangFromHeader(req.headers['accept-language']);
    try {
      await openSession(ctx, wss, req, reply, lang);
    } catch (err) {
      if (!(err instanceof RelayError)) throw err;
      ctx.relay.observer.refused({ route: PATH, status: err.status });
      if (err.retryAfterSec !== undefined) reply.header('retry-after', String(err.retryAfterSec));
      sendError(reply, req.id, 'openai-chat', err, false);
    }
  });
}
