import { consumeLogOther, LogType } from '@modelgate/shared';
import type { Usage } from './adapters/types.js';
import type { LogValues, SettleResult } from '../ledger/ledger.js';
import { describePrice } from './billing/pricing.js';
import type { RuntimeChannel } from './channel-cache.js';
import type { Run } from './relay-run.js';
import { countTokens } from './usage-limits.js';

function otherInfo(run: Run, usage: Usage, frt: number, shortfall: number): string {
  const other = consumeLogOther(run.price, usage, { frt, useChannel: run.used.map(String), shortfall });
  return JSON.stringify(run.logOther ? { ...other, ...run.logOther } : other);
}

/** Charges `charge` and writes the consume log row (docs/relay-billing.md); returns what the ledger charged. */
export async function settle(run: Run, ch: RuntimeChannel, usage: Usage, charge: number, frt: number, responseTimeMs: number): Promise<SettleResult> {
  const { ctx, auth, input } = run;
  const useTime = Math.floor((Date.now() - run.startedAt) / 1000);
  const log = ctx.options.bool('LogConsumeEnabled')
    ? (charged: number, shortfall: number): LogValues => ({
        user_id: auth.user.id,
        created_at: Math.floor(Date.now() / 1000),
        type: LogType.Consume,
        content: describePrice(run.price, usage.promptTokens + usage.completionTokens),
        username: auth.user.username,
        token_name: auth.token.name,
        model_name: input.model,
        quota: charged,
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        use_time: useTime,
        is_stream: input.stream ? 1 : 0,
        channel_id: ch.id,
        token_id: auth.token.id,
        group: auth.group,
        other: otherInfo(run, usage, frt, shortfall),
        request_id: run.requestId,
      })
    : null;
  const settled = await ctx.relay.ledger.settle({
    requestId: run.requestId,
    userId: auth.user.id,
    tokenId: auth.token.id,
    tokenLimited: !auth.token.unlimited,
    reserved: run.reserved,
    charge,
    channelId: ch.id,
    responseTimeMs,
    log,
    paidBy: run.paidBy,
    windows: (run.windows ?? 0) > 0,
  });
  countTokens(ctx, run.req, auth, usage.promptTokens + usage.completionTokens);
  // Quota-alert mail is queued, never awaited: the reply does not wait for SMTP (modules/mail/quota-reminder.ts).
  ctx.relay.afterSettle(auth.user.id, settled);
  ctx.relay.observer.settled({
    route: run.req.routeOptions.url ?? '',
    model: input.model,
    channel: ch.id,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    quota: charge,
    durationMs: Date.now() - run.startedAt,
    firstByteMs: frt,
  });
  return settled;
}
