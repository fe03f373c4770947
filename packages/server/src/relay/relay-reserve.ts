import { modelOutputLimit, TokenStatus, type Lang } from '@modelgate/shared';
import type { RelayContext } from './relay-context.js';
import { countText } from './billing/token-counter.js';
import { outputCap } from './billing/output-caps.js';
import { emptyUsage, estimateQuota, imageQuota, usageQuota, type Price } from './billing/pricing.js';
import { localError, type RelayError } from './relay-error.js';
import { noteLogOther, type Run } from './relay-run.js';
import { payerNote, quotaDisplay, requestWindows, windowRefusal } from './relay-windows.js';
import type { ReserveResult } from '../ledger/ledger.js';
import type { RelayAuth } from './token-auth.js';
import { codePoints, localPromptTokens } from './usage-count.js';

/**
 * Spend limits (docs/ledger.md): a request reserves what it can cost — its prompt plus max_tokens,
 * or the model's output cap when the client set none — clamped to what the user and the token can
 * still pay. A clamped request gets a max_tokens it can afford and its stream is metered, so a
 * balance or a token limit is never exceeded by more than one chunk, whatever the concurrency.
 */

/** Bodies up to this size are counted exactly when a quick estimate is needed (cheap, inline). */
const EXACT_COUNT_BYTES = 64 * 1024;
/** Share of the affordable completion a clamped request asks the upstream for. */
const METER_HEADROOM = 0.8;

function textMode(run: Run): boolean {
  return run.input.mode === 'chat' || run.input.mode === 'completions';
}

/**
 * The most completion tokens the call can cost: the client's max_tokens, no more than the model's
 * documented output limit (the channel caps it there too), else the model's output cap.
 */
function completionBound(run: Run): number {
  const m = run.input.mode;
  if (m === 'embeddings' || m === 'moderations' || m === 'rerank') return 0;
  const asked = run.input.maxTokens;
  if (!asked || asked <= 0) return outputCap(run.input.model);
  return Math.min(asked, modelOutputLimit(run.input.model) ?? asked);
}

/** Fixed costs known before the call: the amount, and no clamping is possible. */
function fixedCost(run: Run): number | undefined {
  const { input, price } = run;
  // Generations, edits and variations: per image (reference §5.3).
  if (input.image) return imageQuota(price, input.image);
  if (input.mode === 'speech') return usageQuota(price, { ...emptyUsage(), promptTokens: codePoints(String(input.body?.input ?? '')) });
  if (price.modelPrice >= 0) return estimateQuota(price, 0, undefined, 0);
  if (input.mode === 'transcriptions' || input.mode === 'translations') return estimateQuota(price, 0, undefined, run.ctx.options.num('PreConsumedQuota'));
  return undefined;
}

/** The most completion tokens `limit` pays for after a prompt of `prompt` tokens (0 if not even one). */
export function affordableCompletion(price: Price, prompt: number, limit: number, cap: number): number {
  const cost = (c: number) => estimateQuota(price, prompt, c, 0);
  if (cost(cap) <= limit) return cap;
  const per = price.modelRatio * price.groupRatio * price.completionRatio;
  let c = per > 0 ? Math.min(cap, Math.max(0, Math.floor((limit / (price.modelRatio * price.groupRatio) - prompt) / price.completionRatio))) : cap;
  while (c > 0 && cost(c) > limit) c -= 1;
  return c;
}

async function quickPromptTokens(run: Run): Promise<number> {
  // A token is at least one byte; a large body is not tokenised just to word a refusal.
  return run.input.raw.length <= EXACT_COUNT_BYTES ? localPromptTokens(run.input) : Math.ceil(run.input.raw.length / 4);
}

export async function reserve(run: Run): Promise<void> {
  const { ctx, input, price, auth } = run;
  const tokenLimited = !auth.token.unlimited;
  const now = Math.floor(Date.now() / 1000);
  const ledger = ctx.relay.ledger;
  // Periodic limits and plans (relay-windows.ts): nothing for a caller that has neither.
  const limits = requestWindows(ctx, auth, input.model, now);
  const take = (amount: number, min?: number) =>
    ledger.reserve({
      requestId: run.requestId,
      userId: auth.user.id,
      tokenId: auth.token.id,
      tokenLimited,
      amount,
      min,
      now,
      windows: limits.windows,
      plans: limits.plans,
      fallThrough: limits.fallThrough,
    });

  const fixed = fixedCost(run);
  const cap = completionBound(run);
  // A cheap upper bound first: the body's bytes bound the prompt's tokens.
  const upper = fixed ?? estimateQuota(price, input.raw.length, cap, 0);
  const first = await take(upper);
  if (first.ok) return held(run, first);
  if (first.who === 'finished') throw localError(run.lang, 409, 'RELAY_REQUEST_FINISHED');
  if (first.who === 'window') throw windowRefusal(run.lang, auth, first.block, limits.tz, quotaDisplay(ctx));
  // A subscription may be paying: the wallet only speaks for itself when it was the one short.
  const walletOnly = first.who === 'user' || !limits.plans;
  const balances = await balancesOf(ctx, auth, { plans: !walletOnly });
  if (first.who !== 'short' && (fixed !== undefined || balances.user <= 0 || balances.token <= 0)) {
    // Nothing left (or a fixed price that does not fit): refuse without counting the prompt.
    const need = fixed ?? estimateQuota(price, await quickPromptTokens(run), cap > 0 ? 1 : 0, 0);
    throw await quotaRefusal(ctx, auth, run.lang, balances, need);
  }
  // A window or a plan with less room than the upper bound: the prompt is counted and the request takes what is left.
  const prompt = fixed === undefined ? await localPromptTokens(input) : 0;
  const full = fixed ?? estimateQuota(price, prompt, cap, 0);
  const min = fixed ?? estimateQuota(price, prompt, cap > 0 ? 1 : 0, 0);
  const second = await take(full, textMode(run) ? min : full);
  if (!second.ok) {
    if (second.who === 'finished') throw localError(run.lang, 409, 'RELAY_REQUEST_FINISHED');
    if (second.who === 'window') throw windowRefusal(run.lang, auth, second.block, limits.tz, quotaDisplay(ctx));
    throw await quotaRefusal(ctx, auth, run.lang, await balancesOf(ctx, auth, { plans: second.who !== 'user' && !!limits.plans }), textMode(run) ? min : full);
  }
  held(run, second);
  if (second.amount < full) {
    // The provider counts tokens its own way: asking for a fifth less than the reservation pays
    // for keeps an honest upstream inside it, so the meter only ever stops one that overruns.
    const affordable = affordableCompletion(price, prompt, second.amount, cap);
    run.maxTokensOverride = Math.max(1, Math.floor(affordable * METER_HEADROOM));
    run.meter = { limit: second.amount, promptTokens: prompt, completionTokens: 0 };
    // A body whose reasoning needs a larger cap (Anthropic thinking: max_tokens > 1024) is refused
    // by the channel's request builder with what that cap would cost (docs/relay-billing.md).
    run.clampRefusal = (minTokens) => shortfall(run.lang, balances, estimateQuota(price, prompt, Math.ceil(minTokens / METER_HEADROOM), 0));
  }
}

/** Records what the reservation holds and, for a caller with plans, who pays (the consume log's `billing_source`). */
function held(run: Run, r: Extract<ReserveResult, { ok: true }>): void {
  run.reserved = r.amount;
  run.paidBy = r.paidBy ?? 0;
  run.windows = r.windows ?? 0;
  const note = payerNote(run.auth, run.paidBy);
  if (note) for (const [k, v] of Object.entries(note)) noteLogOther(run, k, v);
}

/**
 * What the user and (for a limited token) the token can still pay; Infinity for an unlimited token.
 * With `plans`, a user holding a running subscription can pay whatever the wallet holds (a plan may
 * pay instead: the reservation decides).
 */
export async function balancesOf(ctx: RelayContext, auth: RelayAuth, opts: { plans?: boolean } = {}): Promise<{ user: number; token: number }> {
  const now = Math.floor(Date.now() / 1000);
  const planPays = opts.plans === true && auth.user.plans.some((p) => p.expiresAt === 0 || p.expiresAt > now);
  // During a database outage: what this node may still spend from its cache (ledger/outage).
  const outage = ctx.relay.ledger.outage;
  if (outage?.active) {
    const local = outage.available(auth.user.id, auth.token.id, !auth.token.unlimited);
    if (local) return planPays ? { ...local, user: Infinity } : local;
  }
  const db = ctx.db.db;
  const u = await db.selectFrom('users').select('quota').where('id', '=', auth.user.id).executeTakeFirst();
  let token = Infinity;
  if (!auth.token.unlimited) {
    const t = await db.selectFrom('tokens').select('remain_quota').where('id', '=', auth.token.id).executeTakeFirst();
    token = Number(t?.remain_quota ?? 0);
  }
  return { user: planPays ? Infinity : Number(u?.quota ?? 0), token };
}

/**
 * The error for a call that cannot be paid: says how much it needs and what is left. `need` is a
 * text (e.g. "> 0") where the cost is not known yet (the relay gate, before the body is read).
 */
export async function quotaRefusal(ctx: RelayContext, auth: RelayAuth, lang: Lang, b: { user: number; token: number }, need: number | string): Promise<RelayError> {
  if (b.user > 0 && b.token <= 0 && !(typeof need === 'number' && b.user < need)) {
    await ctx.relay.markTokenStatus(auth.token.id, TokenStatus.Exhausted);
    return localError(lang, 401, 'RELAY_TOKEN_EXHAUSTED', { detail: `token quota: ${Math.max(0, b.token)}, need quota: ${need}` });
  }
  return shortfall(lang, b, need);
}

/** The refusal for a balance (user first, then token) that does not cover `need`; an empty token is told apart by quotaRefusal. */
function shortfall(lang: Lang, b: { user: number; token: number }, need: number | string): RelayError {
  // An unlimited token (Infinity) never falls short: the user did, even if a later read shows enough (another request took it meanwhile).
  if (b.user <= 0 || (typeof need === 'number' && b.user < need) || b.token === Infinity) {
    const detail = `user quota: ${Math.max(0, b.user)}, need quota: ${need}`;
    if (b.user <= 0) return localError(lang, 403, 'RELAY_USER_QUOTA_INSUFFICIENT', { type: 'insufficient_user_quota', errorCode: 'insufficient_user_quota', detail });
    return localError(lang, 400, 'RELAY_PRE_CONSUME_FAILED', { errorCode: 'pre_consume_token_quota_failed', detail });
  }
  return localError(lang, 403, 'RELAY_TOKEN_QUOTA_INSUFFICIENT', { errorCode: 'pre_consume_token_quota_failed', detail: `token quota: ${Math.max(0, b.token)}, need quota: ${need}` });
}

/**
 * Stream metering for a clamped request: true when `text` (the next event's completion text) can
 * still be paid for; counts it in when it can.
 */
export async function meterAllows(run: Run, text: string): Promise<boolean> {
  const m = run.meter;
  if (!m || !text) return true;
  const tokens = await countText(run.input.model, text);
  const cost = usageQuota(run.price, { ...emptyUsage(), promptTokens: m.promptTokens, completionTokens: m.completionTokens + tokens });
  if (cost > m.limit) return false;
  m.completionTokens += tokens;
  return true;
}
