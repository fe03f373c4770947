import { relayLangFromHeader, serverMessage, type Lang } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { affinityKey, conversationKey } from './affinity.js';
import type { RelayContext } from './relay-context.js';
import { priceFor, type Price, type PricingTables } from './billing/pricing.js';
import type { RuntimeChannel } from './channel-cache.js';
import { attemptOnce } from './relay-attempt.js';
import { tracedAttempt } from './relay-tracing.js';
import { asRelayError, localError, RelayError } from './relay-error.js';
import { sendError } from './relay-reply.js';
import { noteLogOther, type Attempt, type Run } from './relay-run.js';
import { reserve } from './relay-reserve.js';
import type { RelayInput } from './relay-input.js';
import { parseRelayInput, type RelayRoute } from './request-parse.js';
import { sensitiveHits } from './sensitive/sensitive-filter.js';
import { localPromptTokens } from './usage-count.js';
import { assertModelAllowed, requestAuth, type RelayAuth } from './token-auth.js';

export function pricingTables(ctx: Pick<RelayContext, 'options'>): PricingTables {
  const o = ctx.options;
  return {
    modelRatio: o.json<Record<string, number>>('ModelRatio', {}),
    completionRatio: o.json<Record<string, number>>('CompletionRatio', {}),
    cacheRatio: o.json<Record<string, number>>('CacheRatio', {}),
    createCacheRatio: o.json<Record<string, number>>('CreateCacheRatio', {}),
    modelPrice: o.json<Record<string, number>>('ModelPrice', {}),
    groupRatio: o.json<Record<string, number>>('GroupRatio', {}),
    quotaPerUnit: o.num('QuotaPerUnit'),
  };
}

/**
 * A model with neither a ModelPrice nor a ModelRatio entry is refused (naming it) unless the
 * operator chose AllowUnpricedModels; the reference billed it at ratio 30 without a word.
 */
export function assertPriced(ctx: Pick<RelayContext, 'options'>, price: Price, lang: Lang): void {
  if (price.modelPrice >= 0 || price.ratioFound || ctx.options.bool('AllowUnpricedModels')) return;
  throw new RelayError(400, 'new_api_error', 'model_price_error', serverMessage('RELAY_MODEL_UNPRICED', lang).replace('{model}', price.model));
}

/**
 * The affinity map's key for this request (docs/providers.md "Channel affinity"), or undefined
 * when affinity does not apply: switched off, a pinned channel, not a text generation, or a model
 * only one channel serves (no choice to remember, so no store read or write on the hot path).
 */
function affinityFor(ctx: RelayContext, auth: RelayAuth, input: RelayInput, headers: IncomingHttpHeaders): string | undefined {
  if (auth.pinned || (input.mode !== 'chat' && input.mode !== 'completions') || !ctx.options.bool('ChannelAffinityEnabled')) return undefined;
  if (!ctx.relay.channels.hasChoice(auth.group, input.model)) return undefined;
  const key = conversationKey(input, headers);
  return key && affinityKey(auth.user.id, auth.group, input.model, key);
}

/** The channel the conversation is bound to, when `select` could pick it now (enabled, highest available tier). */
async function affinityChannel(ctx: RelayContext, auth: RelayAuth, model: string, key: string | undefined): Promise<RuntimeChannel | undefined> {
  if (!key) return undefined;
  const id = await ctx.relay.affinity.lookup(key);
  return id === undefined ? undefined : ctx.relay.channels.candidate(auth.group, model, id, new Set());
}

/**
 * No channel to try: a model no channel of the group offers at all is unknown (404
 * `model_not_found`, as OpenAI answers); one whose channels are all disabled or failing is
 * unavailable for now (503).
 */
function noChannel(ctx: RelayContext, group: string, model: string, lang: Lang): RelayError {
  if (!ctx.relay.channels.offers(group, model)) {
    return localError(lang, 404, 'RELAY_MODEL_NOT_FOUND', { type: 'invalid_request_error', errorCode: 'model_not_found', detail: model, param: 'model' });
  }
  return localError(lang, 503, 'RELAY_NO_CHANNEL', { errorCode: 'model_not_found', detail: `${group} / ${model}` });
}

/** Entry point of every relay route; `route` says the operation and the caller's wire format. */
export async function relay(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, route: RelayRoute, pathModel?: string): Promise<void> {
  const requestId = req.id;
  reply.header('x-oneapi-request-id', requestId);
  const lang = relayLangFromHeader(req.headers['accept-language']);
  try {
    // Authenticated by the relay gate before the body was read (relay-gate.ts).
    const auth = await requestAuth(ctx, req, lang);
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const input = parseRelayInput(route, raw, String(req.headers['content-type'] ?? ''), lang, pathModel);
    assertModelAllowed(auth, input.model, lang);
    await ctx.relay.channels.ensure();
    const affinity = affinityFor(ctx, auth, input, req.headers);
    const bound = await affinityChannel(ctx, auth, input.model, affinity);
    const first = auth.pinned ?? bound ?? ctx.relay.channels.select(auth.group, input.model, new Set());
    if (!first) throw noChannel(ctx, auth.group, input.model, lang);
    const hits = sensitiveHits(ctx.options, input);
    // Before any price, reservation or upstream call: a refused prompt costs nothing.
    if (hits.length) throw new RelayError(400, 'new_api_error', 'sensitive_words_detected', serverMessage('RELAY_SENSITIVE_WORDS', lang).replace('{words}', hits.join(',')));
    const price = priceFor(input.model, auth.group, pricingTables(ctx));
    assertPriced(ctx, price, lang);
    const run: Run = { ctx, req, reply, lang, requestId, startedAt: Date.now(), auth, input, price, reserved: 0, used: [] };
    if (bound) noteLogOther(run, 'affinity', true);
    await reserve(run);
    await attemptLoop(run, first, affinity);
  } catch (caught) {
    const err = asRelayError(caught, lang);
    ctx.relay.observer.refused({ route: req.routeOptions.url ?? '', status: err ? err.status : 500 });
    if (err) {
      if (err.retryAfterSec !== undefined && !reply.sent) reply.header('retry-after', String(err.retryAfterSec));
      return sendError(reply, requestId, route.format, err, false);
    }
    req.log.error({ err: caught }, 'relay failed');
    sendError(reply, requestId, route.format, new RelayError(500, 'new_api_error', 'internal_error', 'internal error'), true);
  }
}

/**
 * Channels whose `max_input_tokens` the prompt exceeds are passed over (not an attempt: nothing is
 * sent, no retry is used). The body's bytes bound its tokens, so the prompt is tokenised only when
 * a limited channel could be too small for it, and then once.
 */
class InputLimits {
  private tokens: number | undefined;
  /** The largest limit a passed-over channel had (for the refusal's message). */
  largest = 0;

  constructor(private readonly run: Run) {}

  async fits(ch: RuntimeChannel): Promise<boolean> {
    const limit = ch.maxInputTokens;
    if (limit <= 0 || this.run.input.raw.length <= limit) return true;
    this.tokens ??= await localPromptTokens(this.run.input);
    if (this.tokens <= limit) return true;
    this.largest = Math.max(this.largest, limit);
    return false;
  }

  /** `ch`, or the next channel that takes the prompt; `tried` gains each one passed over. */
  async fitting(ch: RuntimeChannel | undefined, tried: Set<number>): Promise<RuntimeChannel | undefined> {
    const { ctx, auth, input } = this.run;
    while (ch && !(await this.fits(ch))) {
      tried.add(ch.id);
      ch = auth.pinned ? undefined : ctx.relay.channels.select(auth.group, input.model, tried);
    }
    return ch;
  }

  refusal(): RelayError {
    const message = serverMessage('RELAY_INPUT_TOO_LONG', this.run.lang).replace('{tokens}', String(this.tokens ?? 0)).replace('{limit}', String(this.largest));
    return new RelayError(400, 'invalid_request_error', 'context_length_exceeded', message);
  }
}

/** `affinity`: the conversation's key in the affinity map, bound to the channel that serves it. */
async function attemptLoop(run: Run, first: RuntimeChannel, affinity?: string): Promise<void> {
  const { ctx } = run;
  const tried = new Set<number>();
  const retries = run.auth.pinned ? 0 : Math.max(0, Math.floor(ctx.options.num('RetryTimes')));
  const limits = new InputLimits(run);
  const { breaker, retryBudget } = ctx.relay;
  retryBudget.request();
  let ch: RuntimeChannel | undefined = await limits.fitting(first, tried);
  if (!ch) {
    // No channel of the model takes a prompt this long: refused before any upstream call, nothing charged.
    await ctx.relay.ledger.release(run.requestId);
    throw limits.refusal();
  }
  for (let i = 0; ch; i++) {
    tried.add(ch.id);
    run.used.push(ch.id);
    let result: Attempt;
    try {
      result = await tracedAttempt(run, ch, i, attemptOnce);
    } catch (err) {
      await ctx.relay.ledger.release(run.requestId).catch(() => false);
      throw err;
    }
    if (result.ok) {
      breaker.success(ch.id);
      if (affinity) await ctx.relay.affinity.bind(affinity, ch.id, Math.max(1, ctx.options.num('ChannelAffinityTtlSeconds')) * 1000);
      return;
    }
    ctx.relay.observer.attemptFailed({ channel: ch.id, status: result.error.status, retryable: result.retryable });
    // A refused cached credential was already replaced and retried once by the upstream client (upstream-client.ts).
    run.req.log.warn({ channel: ch.id, status: result.error.status, code: result.error.code }, `relay error (channel #${ch.id}, status code: ${result.error.status})`);
    if (result.upstream?.disablesChannel && ch.autoBan && ctx.options.bool('AutomaticDisableChannelEnabled')) {
      await ctx.relay.autoDisableChannel(ch.id, result.upstream.message.slice(0, 500)).catch((err: unknown) => run.req.log.error({ err }, 'auto-disable failed'));
    }
    const clientGone = run.reply.raw.destroyed && !run.reply.raw.writableEnded;
    // The upstream failed (5xx, timeout, refused connection), not the request: it counts toward ejecting the channel.
    if (!clientGone && result.upstream && result.error.status >= 500) breaker.failure(ch.id);
    let next = result.retryable && i < retries && !clientGone ? await limits.fitting(ctx.relay.channels.select(run.auth.group, run.input.model, tried), tried) : undefined;
    // Retries stay a bounded share of requests: when every channel fails, they must not multiply the load.
    if (next && !retryBudget.tryRetry()) next = undefined;
    if (!next) {
      // Every channel failed: nothing was delivered, so nothing is charged.
      await ctx.relay.ledger.release(run.requestId);
      const e = result.error;
      ctx.relay.observer.failed({ route: run.req.routeOptions.url ?? '', model: run.input.model, channel: ch.id, status: e.status });
      const final =
        e.status === 429 ? new RelayError(429, e.type, e.code, localError(run.lang, 429, 'RELAY_UPSTREAM_SATURATED').message, e.param, false) : e;
      sendError(run.reply, run.requestId, run.input.format, final, true);
      return;
    }
    ctx.relay.observer.retried({ fromChannel: ch.id });
    // The bound channel failed: affinity no longer decided which channel serves the request.
    noteLogOther(run, 'affinity', undefined);
    ch = next;
  }
}
