import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { langFromHeader, type Lang } from '@modelgate/shared';
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
import { assertModelAllowed, requestAuth } from '../token-auth.js';
import { mapStatus } from '../upstream.js';
import { RealtimeBilling } from './realtime-billing.js';
import { RealtimePipe } from './realtime-session.js';

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

const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, handleProtocols: (offered) => (offered.has('realtime') ? 'realtime' : false) });

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
  return new Promise<Dialled>((resolve) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
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

async function openSession(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, lang: Lang): Promise<void> {
  const pending = upgrades.get(req.raw);
  if (!pending) throw localError(lang, 426, 'RELAY_REALTIME_UPGRADE_REQUIRED', { type: 'invalid_request_error', errorCode: 'upgrade_required' });
  const auth = await requestAuth(ctx, req, lang);
  const model = String((req.query as { model?: unknown }).model ?? '').trim();
  if (!model) throw new RelayError(400, 'invalid_request_error', 'missing_model', 'model is required', 'model');
  assertModelAllowed(auth, model, lang);
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
    return;
  }
  const pipe = new RealtimePipe(dialled.ws, ch, billing, req.id, lang, req.log, dialled.early);
  wss.handleUpgrade(req.raw, pending.socket, pending.head, (client) => pipe.attach(client));
}

export function realtimeRoutes(scope: FastifyInstance, ctx: RelayContext): void {
  scope.get(PATH, { schema: fastifySchema(`GET ${PATH}` as ApiRouteKey) }, async (req, reply) => {
    const lang = langFromHeader(req.headers['accept-language']);
    try {
      await openSession(ctx, req, reply, lang);
    } catch (err) {
      if (!(err instanceof RelayError)) throw err;
      ctx.relay.observer.refused({ route: PATH, status: err.status });
      sendError(reply, req.id, 'openai-chat', err, false);
    }
  });
}
