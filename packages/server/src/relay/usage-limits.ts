import type { Lang } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RelayContext } from './relay-context.js';
import { localError, type RelayError } from './relay-error.js';
import type { RelayAuth } from './token-auth.js';

/**
 * Limits users expect (docs/architecture.md#usage-limits): requests and tokens per minute per API
 * token, requests in flight per user. Counted in the rate-limit store, so in Redis across every
 * node when it is configured (in memory on one node otherwise), and answered with 429 and
 * Retry-After in the caller's error format. A limit of 0 costs nothing.
 */
const rpmKey = (tokenId: number) => `RPM:${tokenId}`;
const tpmKey = (tokenId: number) => `TPM:${tokenId}`;
const slotsKey = (userId: number) => `CC:${userId}`;

/** A slot outlives any request (streams included) but not a node that died holding it. */
const SLOT_TTL_MS = 30 * 60_000;

function limited(lang: Lang, code: 'RELAY_TOKEN_RPM_LIMITED' | 'RELAY_TOKEN_TPM_LIMITED' | 'RELAY_USER_CONCURRENCY_LIMITED', detail: string, retryAfterSec: number): RelayError {
  const err = localError(lang, 429, code, { errorCode: 'rate_limit_exceeded', detail });
  err.retryAfterSec = retryAfterSec;
  return err;
}

/** Seconds until the next minute starts, when this minute's count stops weighing in full. */
function untilNextMinute(now: number): number {
  return Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000));
}

/** Checks (and counts) the caller's limits before the body is read; throws a 429 RelayError. */
export async function enforceUsageLimits(ctx: Pick<RelayContext, 'rateLimitStore'>, req: FastifyRequest, reply: FastifyReply, auth: RelayAuth, lang: Lang): Promise<void> {
  const store = ctx.rateLimitStore;
  const { token, user } = auth;
  const now = Date.now();
  if (token.rpmLimit > 0 && !(await store.addToMinute(rpmKey(token.id), 1, token.rpmLimit, now))) {
    throw limited(lang, 'RELAY_TOKEN_RPM_LIMITED', `${token.rpmLimit} / min`, untilNextMinute(now));
  }
  if (token.tpmLimit > 0 && (await store.minuteUsage(tpmKey(token.id), now)) >= token.tpmLimit) {
    throw limited(lang, 'RELAY_TOKEN_TPM_LIMITED', `${token.tpmLimit} / min`, untilNextMinute(now));
  }
  if (user.concurrencyLimit > 0) {
    const key = slotsKey(user.id);
    if (!(await store.acquireSlot(key, req.id, user.concurrencyLimit, SLOT_TTL_MS, now))) {
      throw limited(lang, 'RELAY_USER_CONCURRENCY_LIMITED', String(user.concurrencyLimit), 1);
    }
    // The response is over (sent, or the client went away): the slot is free for the next request.
    reply.raw.once('close', () => {
      void Promise.resolve(store.releaseSlot(key, req.id)).catch((err: unknown) => req.log.warn({ err }, 'could not release a concurrency slot; it expires by itself'));
    });
  }
}

/** After settlement: the tokens a request used count against its token's per-minute budget. */
export function countTokens(ctx: Pick<RelayContext, 'rateLimitStore'>, req: FastifyRequest, auth: RelayAuth, tokens: number): void {
  if (auth.token.tpmLimit <= 0 || tokens <= 0) return;
  void Promise.resolve(ctx.rateLimitStore.addToMinute(tpmKey(auth.token.id), tokens, Infinity, Date.now())).catch((err: unknown) =>
    req.log.warn({ err }, 'could not count tokens against the per-minute limit'),
  );
}
