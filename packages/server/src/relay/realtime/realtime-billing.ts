import { emptyUsage, type Lang, type Usage } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RelayContext } from '../relay-context.js';
import { estimateQuota, usageQuota, type Price } from '../billing/pricing.js';
import type { RuntimeChannel } from '../channel-cache.js';
import type { RelayError } from '../relay-error.js';
import { balancesOf, quotaRefusal } from '../relay-reserve.js';
import type { Run } from '../relay-run.js';
import { settle } from '../relay-settle.js';
import { payerNote, quotaDisplay, requestWindows, windowRefusal } from '../relay-windows.js';
import type { RelayAuth } from '../token-auth.js';

/** A `response.done` event's `usage` (Realtime API) as normalised usage; undefined when it carries none. */
export function realtimeUsage(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const u = raw as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
  const inDetails = (u.input_token_details ?? {}) as Record<string, unknown>;
  const outDetails = (u.output_token_details ?? {}) as Record<string, unknown>;
  const usage = { ...emptyUsage(), promptTokens: n(u.input_tokens), completionTokens: n(u.output_tokens) };
  if (usage.promptTokens + usage.completionTokens === 0) return undefined;
  usage.cachedTokens = n(inDetails.cached_tokens);
  usage.audioInputTokens = n(inDetails.audio_tokens);
  usage.audioOutputTokens = n(outDetails.audio_tokens);
  return usage;
}

/**
 * Money of one realtime session (docs/providers.md#realtime). Every response is its own ledger
 * request (`<session request id>-<n>`): a hold is reserved before the upstream is dialled and
 * before each next response, each `response.done` settles its usage against the hold with one
 * consume log row (`other.ws: true`). A response that ends without `response.done` but produced
 * output is settled from a local count (`other.estimated: true`), at least its hold; the hold
 * still open when the session ends is released only when nothing was produced under it.
 * The reference bills incrementally per response too (it writes a single log row at the end); one
 * row per response keeps every charge beside the ledger outcome that made it.
 */
export class RealtimeBilling {
  private n = 0;
  private holdId: string | undefined;
  private held = 0;
  /** Who pays the open hold (a subscription, 0: the wallet) and whether it holds windows (relay-windows.ts). */
  private paidBy = 0;
  private windows = 0;
  private readonly holdAmount: number;

  constructor(
    private readonly ctx: RelayContext,
    private readonly req: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly lang: Lang,
    private readonly auth: RelayAuth,
    readonly model: string,
    private readonly price: Price,
  ) {
    // What a response is assumed to cost until its usage is known: PreConsumedQuota tokens (reference §4 audio).
    this.holdAmount = Math.max(1, estimateQuota(price, 0, undefined, Math.max(1, ctx.options.num('PreConsumedQuota'))));
  }

  /**
   * Reserves the hold of the next response; the refusal when the user or token cannot pay even one
   * quota unit, or a periodic limit or plan allowance has no room (429 `period_limit_exceeded`).
   * Each response counts against the caller's windows as one request; a plan with room pays for it.
   */
  async reserveNext(): Promise<RelayError | undefined> {
    this.n += 1;
    const requestId = `${this.req.id}-${this.n}`;
    const { auth } = this;
    const now = Math.floor(Date.now() / 1000);
    const limits = requestWindows(this.ctx, auth, this.model, now);
    const r = await this.ctx.relay.ledger.reserve({
      requestId,
      userId: auth.user.id,
      tokenId: auth.token.id,
      tokenLimited: !auth.token.unlimited,
      amount: this.holdAmount,
      min: 1,
      now,
      windows: limits.windows,
      plans: limits.plans,
      fallThrough: limits.fallThrough,
    });
    if (!r.ok) {
      if (r.who === 'window') return windowRefusal(this.lang, auth, r.block, limits.tz, quotaDisplay(this.ctx));
      return quotaRefusal(this.ctx, auth, this.lang, await balancesOf(this.ctx, auth, { plans: r.who !== 'user' && !!limits.plans }), this.holdAmount);
    }
    this.holdId = requestId;
    this.held = r.amount;
    this.paidBy = r.paidBy ?? 0;
    this.windows = r.windows ?? 0;
    return undefined;
  }

  /**
   * Settles one response's usage against the open hold; true when the whole charge was paid.
   * `estimated`: the usage was counted locally from what the upstream sent (realtime-tally.ts), not
   * reported; `unfinished`: the response ended without its `response.done`, so its input side is
   * unknown and it costs at least the hold that was reserved for it.
   */
  async charge(ch: RuntimeChannel, usage: Usage, startedAt: number, frt: number, how: { estimated?: boolean; unfinished?: boolean } = {}): Promise<boolean> {
    const requestId = this.holdId;
    if (!requestId) return false;
    this.holdId = undefined;
    const counted = usageQuota(this.price, usage);
    const charge = how.unfinished ? Math.max(counted, this.held) : counted;
    const run: Run = {
      ctx: this.ctx,
      req: this.req,
      reply: this.reply,
      lang: this.lang,
      requestId,
      startedAt,
      auth: this.auth,
      input: { mode: 'realtime', format: 'openai-realtime', model: this.model, stream: true, clientWantsUsage: false, body: null, raw: Buffer.alloc(0), contentType: '', maxTokens: undefined },
      price: this.price,
      reserved: this.held,
      paidBy: this.paidBy,
      windows: this.windows,
      used: [ch.id],
      logOther: { ws: true, ...(how.estimated ? { estimated: true } : {}), ...payerNote(this.auth, this.paidBy) },
    };
    const settled = await settle(run, ch, usage, charge, frt, Date.now() - startedAt);
    // Less charged than owed: the user or the token ran dry during this response.
    return settled.duplicate || settled.charged >= charge;
  }

  /** Gives back the hold still open (the session ended between responses, or its last one produced nothing). */
  async release(): Promise<void> {
    const requestId = this.holdId;
    this.holdId = undefined;
    if (requestId) await this.ctx.relay.ledger.release(requestId);
  }
}
