import { LogType, perCallQuota } from '@modelgate/shared';
import type { Ledger } from '../../ledger/ledger.js';
import type { OptionsService } from '../../modules/options/options.service.js';
import type { TaskAdapter } from '../adapters/task-types.js';
import { priceFor } from '../billing/pricing.js';
import { pricingTables } from '../relay.service.js';
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
}

export function payerOf(auth: RelayAuth): Payer {
  return { userId: auth.user.id, username: auth.user.username, tokenId: auth.token.id, tokenName: auth.token.name, tokenLimited: !auth.token.unlimited, group: auth.group };
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
  /** The kind's own refusal when the user or token cannot pay (nothing reaches the upstream). */
  shortQuota(who: string): Error;
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
  if (quota > 0) {
    const r = await ledger.reserve({ requestId, userId: payer.userId, tokenId: payer.tokenId, tokenLimited: payer.tokenLimited, amount: quota, now: Math.floor(Date.now() / 1000) });
    if (!r.ok) throw c.shortQuota(r.who);
  }
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
          other: c.log?.other ?? '{}',
          request_id: requestId,
        })
      : null,
  });
  return { reply, charged: settled.charged, accepted: true };
}
