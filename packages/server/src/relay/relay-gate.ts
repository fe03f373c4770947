import { relayLangFromHeader, type Lang } from '@modelgate/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RelayContext } from './relay-context.js';
import { asRelayError, localError } from './relay-error.js';
import { errorJson, routeFormat } from './relay-reply.js';
import { balancesOf, quotaRefusal } from './relay-reserve.js';
import { authenticateToken, type RelayAuth } from './token-auth.js';
import { enforceUsageLimits } from './usage-limits.js';

/** Rate-limit store key of a token's `/v1` budget (shared by every node when the store is Redis). */
export function tokenRateKey(tokenId: number): string {
  return `RT:${tokenId}`;
}

/**
 * A refused request whose body has not been read: Node drains (and discards) a declared body that
 * is within the route's limit, so an ordinary client with a wrong key still gets a clean 401 on a
 * reusable connection; a larger or chunked (unbounded) one is not worth draining, so the
 * connection closes after the answer, as fastify does for its own 413.
 */
function closeIfBodyUnbounded(req: FastifyRequest, reply: FastifyReply): void {
  if (req.headers['transfer-encoding'] !== undefined) {
    reply.header('connection', 'close');
    return;
  }
  const length = Number(req.headers['content-length'] ?? 0);
  if (!(length > 0)) return;
  if (!(length <= req.routeOptions.bodyLimit)) reply.header('connection', 'close');
}

/** Bodies from this size on are not read (nor parsed) for a caller who has nothing left to spend. */
const LARGE_BODY_BYTES = 256 * 1024;

function largeBody(req: FastifyRequest): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  return Number(req.headers['content-length'] ?? 0) >= LARGE_BODY_BYTES;
}

/**
 * For a large body only (one indexed read, off the small-request hot path): a user or token with
 * nothing left is refused before the body is read, so a zero-balance token cannot make the server
 * buffer and parse megabytes. Smaller requests are refused by the ledger's reservation.
 */
async function assertSomethingLeft(ctx: RelayContext, auth: RelayAuth, lang: Lang): Promise<void> {
  // A user with a running plan may be paid for by it (the reservation decides).
  const b = await balancesOf(ctx, auth, { plans: true });
  if (b.user <= 0 || b.token <= 0) throw await quotaRefusal(ctx, auth, lang, b, '> 0');
}

/**
 * The relay's gate, an onRequest hook: the token is authenticated (from the in-memory caches, no
 * query on the hot path) and its request budget checked before fastify reads a byte of the body,
 * so an anonymous, disabled or throttled caller costs no buffering and no parsing. Handlers read
 * the result from `req.relayAuth`. Preflight requests (OPTIONS) pass without a token.
 */
export function installRelayGate(scope: FastifyInstance, ctx: RelayContext): void {
  scope.decorateRequest('relayAuth', null);
  const limit = ctx.config.rateLimits.relayToken;
  const windowMs = limit.windowSec * 1000;
  const overload = ctx.relay.overload;
  // One listener function for every request's close, not a closure per request (hot path).
  const releaseSlot = () => overload.release();
  overload.start();
  scope.addHook('onClose', () => overload.stop());
  scope.addHook('onRequest', async (req, reply) => {
    if (req.method === 'OPTIONS') return;
    const lang = relayLangFromHeader(req.headers['accept-language']);
    // Shed first, before the token is looked at or the body read: an overloaded node spends
    // nothing on the requests it cannot serve well.
    const shed = overload.check();
    if (shed) {
      ctx.relay.observer.refused({ route: req.routeOptions.url ?? '', status: 503 });
      const err = localError(lang, 503, shed === 'lag' ? 'RELAY_OVERLOADED_LAG' : 'RELAY_OVERLOADED', { errorCode: 'server_overloaded' });
      closeIfBodyUnbounded(req, reply);
      return reply.code(503).header('retry-after', String(overload.retryAfterSec(shed))).header('x-oneapi-request-id', req.id).send(errorJson(routeFormat(req), err));
    }
    try {
      const auth = await authenticateToken(ctx, req, lang);
      // Read at request time: main.ts swaps in the Redis store after the context is built.
      if (limit.enabled && !(await ctx.rateLimitStore.hit(tokenRateKey(auth.token.id), limit.max, windowMs, Date.now()))) {
        throw localError(lang, 429, 'RELAY_TOKEN_RATE_LIMITED', { errorCode: 'rate_limit_exceeded', detail: `${limit.max} / ${limit.windowSec} s` });
      }
      if (largeBody(req)) await assertSomethingLeft(ctx, auth, lang);
      await enforceUsageLimits(ctx, req, reply, auth, lang);
      req.relayAuth = auth;
      // A caller gone during the checks above has already closed: no slot to take, none to leak.
      if (!reply.raw.closed) {
        overload.enter();
        reply.raw.once('close', releaseSlot);
      }
    } catch (caught) {
      const err = asRelayError(caught, lang);
      if (!err) throw caught;
      closeIfBodyUnbounded(req, reply);
      if (err.retryAfterSec !== undefined) reply.header('retry-after', String(err.retryAfterSec));
      return reply.code(err.status).header('x-oneapi-request-id', req.id).send(errorJson(routeFormat(req), err));
    }
  });
}
