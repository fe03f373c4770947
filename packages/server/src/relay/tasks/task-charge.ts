import { LogType, perCallQuota, type Lang } from '@modelgate/shared';
import type { Ledger } from '../../ledger/ledger.js';
import type { OptionsService } from '../../modules/options/options.service.js';
import type { TaskAdapter } from '../adapters/task-types.js';
import { priceFor } from '../billing/pricing.js';
import type { RelayError } from '../relay-error.js';
import { pricingTables } from '../relay.service.js';
import { payerNote, quotaDisplay, requestWindows, windowRefusal, type RequestWindows } from '../relay-windows.js';
import type { RelayAuth } from '../token-auth.js';

export interface ChargeDeps {
  options: OptionsService;
  relay: { ledger: Ledger };
}

/** Who pays for a submit: the caller's user and token, as the relay authenticated them. */
export interface Payer {
  userId: number;
  username: string;
  tokenId: number;
  tokenName: string;
  /** False for unlimited tokens: only the user is debited. */
  tokenLimited: boolean;
  group: string;
  /** The caller as authenticated: its user's and token's periodic limits and the user's plans count (relay-windows.ts). Absent: none. */
  auth?: RelayAuth;
}

export function payerOf(auth: RelayAuth): Payer {
  return { userId: auth.user.id, username: auth.user.username, tokenId: auth.token.id, tokenName: auth.token.name, tokenLimited: !auth.token.unlimited, group: auth.group, auth };
}

/** What one action of a kind costs in quota: its model's configured price, else the kind's default (a per-call price). */
export function taskQuota(ctx: Pick<ChargeDeps, 'options'>, kind: Pick<TaskAdapter, 'price'>, action: string, group: string): { model: string; quota: number } {
  const model = kind.price.model(action);
  const price = priceFor(model, group, pricingTables(ctx));
  return { model, quota: perCallQuota({ ...price, modelPrice: price.modelPrice >= 0 ? price.modelPrice : kind.price.defaultUsd(model) }) };
}

export interface SubmitCharge<R> {
  requestId: string;
  payer: Payer;
  model: string;
  action: string;
  quota: number;
  channelId: number;
  /** The caller's language (a window refusal is worded in it). */
  lang: Lang;
  /** The kind's own refusal when the user or token cannot pay (nothing reaches the upstream). */
  shortQuota(who: string): Error;
  /**
   * The kind's own refusal when a periodic limit or a plan allowance has no room: `err` is the
   * relay's 429 (`period_limit_exceeded`, the window and its refill time, `retryAfterSec`). Absent:
   * `err` itself, for a kind whose routes answer relay errors in their envelope.
   */
  periodLimited?(err: RelayError): Error;
  /** Sends the job upstream; a throw gives the reservation back and propagates. */
  send(): Promise<R>;
  /** Whether the upstream took the job: only then is the user charged. */
  accepted(reply: R): boolean;
  /** The channel that took the job, when `send` may move on to another one (the log and the channel's usage name it); else `channelId`. */
  channelOf?: (reply: R) => number;
  /** The consume log's words and billing facts, when the kind bills otherwise than a fixed price per action (videos: per second). */
  log?: { content: string; other: string };
}

/**
 * submit → charge (providers-china-and-tasks §8.3, §9.2): the price is reserved first, so a caller
 * who cannot pay is refused before the upstream sees anything; the reservation is settled (charge,
 * consume log, channel usage) only when the upstream accepted the job, and released otherwise.
 * Returns the reply and what was charged (0 when not accepted).
 */
export async function chargedSubmit<R>(ctx: ChargeDeps, c: SubmitCharge<R>): Promise<{ reply: R; charged: number; accepted: boolean }> {
  const ledger = ctx.relay.ledger;
  const { payer, requestId, quota } = c;
  let paidBy = 0;
  let windows = false;
  if (quota > 0) {
    const now = Math.floor(Date.now() / 1000);
    // Periodic limits and plans count as for any request (relay-windows.ts); nothing is read for a caller with neither.
    const limits: RequestWindows = payer.auth ? requestWindows(ctx, payer.auth, c.model, now) : { tz: '' };
    // A fixed price is never clamped: `min` = the price, so a window or plan with less room refuses (or falls through) at once.
    const r = await ledger.reserve({
      requestId,
      userId: payer.userId,
      tokenId: payer.tokenId,
      tokenLimited: payer.tokenLimited,
      amount: quota,
      min: quota,
      now,
      windows: limits.windows,
      plans: limits.plans,
      fallThrough: limits.fallThrough,
    });
    if (!r.ok) {
      if (r.who === 'window' && payer.auth) {
        const err = windowRefusal(c.lang, payer.auth, r.block, limits.tz, quotaDisplay(ctx));
        throw c.periodLimited ? c.periodLimited(err) : err;
      }
      throw c.shortQuota(r.who);
    }
    paidBy = r.paidBy ?? 0;
    windows = (r.windows ?? 0) > 0;
  }
  // Who paid, in the consume log (for a caller with plans: the subscription, or the wallet past them).
  const note = payer.auth ? payerNote(payer.auth, paidBy) : undefined;
  const other = note ? JSON.stringify({ ...(JSON.parse(c.log?.other ?? '{}') as object), ...note }) : (c.log?.other ?? '{}');
  const started = Date.now();
  let reply: R;
  try {
    reply = await c.send();
  } catch (err) {
    await ledger.release(requestId);
    throw err;
  }
  if (!c.accepted(reply)) {
    await ledger.release(requestId);
    return { reply, charged: 0, accepted: false };
  }
  const channelId = c.channelOf?.(reply) ?? c.channelId;
  const settled = await ledger.settle({
    requestId,
    userId: payer.userId,
    tokenId: payer.tokenId,
    tokenLimited: payer.tokenLimited,
    reserved: quota,
    charge: quota,
    channelId,
    responseTimeMs: Date.now() - started,
    paidBy,
    windows,
    log: ctx.options.bool('LogConsumeEnabled')
      ? (charged) => ({
          user_id: payer.userId,
          created_at: Math.floor(Date.now() / 1000),
          type: LogType.Consume,
          content: c.log?.content ?? `模型固定价格 ${(quota / ctx.options.num('QuotaPerUnit')).toFixed(4)}，操作 ${c.action}`,
          username: payer.username,
          token_name: payer.tokenName,
          model_name: c.model,
          quota: charged,
          prompt_tokens: 0,
          completion_tokens: 0,
          use_time: Math.floor((Date.now() - started) / 1000),
          is_stream: 0,
          channel_id: channelId,
          token_id: payer.tokenId,
          group: payer.group,
          other,
          request_id: requestId,
        })
      : null,
  });
  return { reply, charged: settled.charged, accepted: true };
}
