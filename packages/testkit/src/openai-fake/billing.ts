import { invalidRequest, type RequestContext } from './context.js';
import { sendJson } from './respond.js';
import type { FakeBalance } from './types.js';

export const DEFAULT_BALANCE: FakeBalance = { hardLimitUsd: 100, totalUsageCents: 0, hasPaymentMethod: true, accessUntil: 0 };

/**
 * The billing endpoints OpenAI exposed until 2024 and that gateways still call to read a
 * channel's balance: balance = hard_limit_usd − total_usage / 100.
 */
export async function handleBillingSubscription(ctx: RequestContext): Promise<void> {
  const b = ctx.state.balance;
  await sendJson(ctx, {
    object: 'billing_subscription',
    has_payment_method: b.hasPaymentMethod,
    canceled: false,
    canceled_at: null,
    delinquent: null,
    access_until: b.accessUntil,
    soft_limit: Math.round((b.softLimitUsd ?? b.hardLimitUsd) * 1_000_000),
    hard_limit: Math.round(b.hardLimitUsd * 1_000_000),
    system_hard_limit: Math.round((b.systemHardLimitUsd ?? b.hardLimitUsd) * 1_000_000),
    soft_limit_usd: b.softLimitUsd ?? b.hardLimitUsd,
    hard_limit_usd: b.hardLimitUsd,
    system_hard_limit_usd: b.systemHardLimitUsd ?? b.hardLimitUsd,
    plan: { title: 'Pay-as-you-go', id: 'payg' },
    account_name: 'Fake OpenAI',
  });
}

export async function handleBillingUsage(ctx: RequestContext): Promise<void> {
  for (const param of ['start_date', 'end_date']) {
    if (!ctx.query.get(param)) throw invalidRequest(`Missing query parameter '${param}'`, param, null);
  }
  await sendJson(ctx, { object: 'list', daily_costs: [], total_usage: ctx.state.balance.totalUsageCents });
}

/** Shape used by several OpenAI resellers (API2GPT, AIGC2D) for the same purpose. */
export async function handleCreditGrants(ctx: RequestContext): Promise<void> {
  const b = ctx.state.balance;
  const used = b.totalUsageCents / 100;
  await sendJson(ctx, {
    object: 'credit_summary',
    total_granted: b.hardLimitUsd,
    total_used: used,
    total_available: b.hardLimitUsd - used,
    total_remaining: b.hardLimitUsd - used,
  });
}

/**
 * AIProxy's account overview (`GET /api/report/getUserOverview`, key in the `Api-Key` header, not
 * Bearer): `{success,message,error_code,data:{totalPoints}}`, points = the balance left.
 */
export async function handleAIProxyOverview(ctx: RequestContext): Promise<void> {
  const key = ctx.req.headers['api-key'];
  if (typeof key !== 'string' || !key) {
    await sendJson(ctx, { success: false, message: 'Api-Key is required', error_code: 401, data: null });
    return;
  }
  const b = ctx.state.balance;
  await sendJson(ctx, { success: true, message: '', error_code: 0, data: { totalPoints: b.hardLimitUsd - b.totalUsageCents / 100 } });
}

/** OpenRouter's `GET /api/v1/credits` (base `…/api`): `{data:{total_credits,total_usage}}` in USD. */
export async function handleOpenRouterCredits(ctx: RequestContext): Promise<void> {
  const b = ctx.state.balance;
  await sendJson(ctx, { data: { total_credits: b.hardLimitUsd, total_usage: b.totalUsageCents / 100 } });
}

/** SiliconFlow's `GET /v1/user/info`: `{code:20000,status:true,data:{balance,chargeBalance,totalBalance,…}}`, amounts as strings. */
export async function handleSiliconFlowUserInfo(ctx: RequestContext): Promise<void> {
  const b = ctx.state.balance;
  const total = (b.hardLimitUsd - b.totalUsageCents / 100).toFixed(4);
  await sendJson(ctx, {
    code: 20000,
    message: 'OK',
    status: true,
    data: { id: 'userid', name: 'fake', image: '', email: 'fake@example.com', isAdmin: false, balance: total, status: 'normal', introduction: '', role: '', chargeBalance: '0.0000', totalBalance: total, category: '' },
  });
}
