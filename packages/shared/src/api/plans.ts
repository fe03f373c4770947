import { z } from 'zod';
import { normalisePeriodLimits, PERIOD_WINDOWS, periodLimitsProblem, type PeriodLimits } from '../periods.js';
import { QUOTA_MAX } from '../validation.js';
import { resource } from './contract.js';
import { apiEmpty, apiResponse } from './envelope.js';
import { boolLike, id, idParam, int, line, nameList, text } from './fields.js';

/**
 * Periodic limits and plans (issue 32; docs/ledger.md "Windows and plans"): the caps users and
 * tokens carry, the plans admins sell, users' subscriptions and the window meters everyone reads.
 */

const windowCapView = z.object({ quota: z.number().int(), requests: z.number().int() });

/** Caps by window as answered: only the windows that cap something. */
export const periodLimitsView = z
  .object(Object.fromEntries(PERIOD_WINDOWS.map((w) => [w, windowCapView.optional()])) as Record<(typeof PERIOD_WINDOWS)[number], z.ZodOptional<typeof windowCapView>>)
  .meta({ id: 'PeriodLimits' });

/**
 * Caps by window as sent: `{"day": {"quota": 500000, "requests": 100}, "5h": {"requests": 20}}`;
 * windows `5h`, `day`, `week`, `month`; caps non-negative integers, 0 or absent = none. Answers
 * the normalised form (only windows that cap something).
 */
export const periodLimits = z
  .unknown()
  .transform((v, ctx): PeriodLimits => {
    const problem = periodLimitsProblem(v);
    if (problem !== null) {
      ctx.addIssue({ code: 'custom', message: 'PERIOD_LIMITS_INVALID', params: { code: 'PERIOD_LIMITS_INVALID', detail: problem } });
      return z.NEVER;
    }
    return normalisePeriodLimits(v);
  })
  .meta({
    type: 'object',
    description: 'Caps per window (5h, day, week, month): {quota, requests}; 0 = none',
    additionalProperties: { type: 'object', properties: { quota: { type: 'integer', minimum: 0 }, requests: { type: 'integer', minimum: 0 } } },
  }) as unknown as z.ZodType<PeriodLimits, unknown>;

/** One window as a meter (shared/periods.ts WindowMeter). */
export const windowMeter = z
  .object({
    scope: z.enum(['user', 'token', 'plan']),
    id: z.number().int(),
    name: z.string(),
    window: z.enum(PERIOD_WINDOWS),
    quota_limit: z.number().int(),
    quota_used: z.number().int(),
    requests_limit: z.number().int(),
    requests_used: z.number().int(),
    refill_at: z.number().int(),
  })
  .meta({ id: 'WindowMeter' });

export const PlanStatus = { OnSale: 1, Off: 2 } as const;
export const SubscriptionStatus = { Active: 1, Cancelled: 2, Expired: 3 } as const;
/** Most days a plan may last (100 years); 0 = never expires. */
export const PLAN_DURATION_MAX_DAYS = 36_500;
export const PLAN_NAME_MAX_LENGTH = 64;

export const plan = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    /** In quota, paid from the wallet. */
    price: z.number().int(),
    /** 0 = never expires. */
    duration_days: z.number().int(),
    allowances: periodLimitsView,
    /** Comma-separated; '' = any. */
    models: z.string(),
    groups: z.string(),
    /** Usage beyond the plan falls through to the wallet (else it is refused). */
    fall_through: z.boolean(),
    /** 1 on sale, 2 not on sale. */
    status: z.number().int(),
    created_at: z.number().int(),
    /** Subscriptions running now. */
    active_subscriptions: z.number().int(),
  })
  .meta({ id: 'Plan' });
export type Plan = z.infer<typeof plan>;

export const planBody = z.object({
  name: line(PLAN_NAME_MAX_LENGTH).optional(),
  description: text(512).optional(),
  price: int(0, QUOTA_MAX).optional(),
  duration_days: int(0, PLAN_DURATION_MAX_DAYS).optional(),
  allowances: periodLimits.optional(),
  models: nameList(128, 1024).optional(),
  groups: nameList(64, 1024).optional(),
  fall_through: boolLike.optional(),
  status: int(1, 2).optional(),
});
export const updatePlanBody = planBody.extend({ id });
export type PlanBody = z.input<typeof planBody>;

export const subscription = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    plan_id: z.number().int(),
    name: z.string(),
    allowances: periodLimitsView,
    models: z.string(),
    groups: z.string(),
    fall_through: z.boolean(),
    /** What a renewal costs and adds (the plan's when it was bought). */
    price: z.number().int(),
    duration_days: z.number().int(),
    /** 1 active, 2 cancelled, 3 expired. */
    status: z.number().int(),
    auto_renew: z.boolean(),
    /** Draw order: the active subscription listed first pays first. */
    priority: z.number().int(),
    starts_at: z.number().int(),
    /** 0 = never. */
    expires_at: z.number().int(),
    renewals: z.number().int(),
    /** The admin who granted it; 0 when bought. */
    granted_by: z.number().int(),
    created_at: z.number().int(),
    ended_at: z.number().int(),
    meters: z.array(windowMeter),
  })
  .meta({ id: 'Subscription' });
export type Subscription = z.infer<typeof subscription>;

export const grantPlanBody = z.object({ user_id: id, plan_id: id });
export const subscriptionIdBody = z.object({ id });
export const subscriptionSettingsBody = z.object({ id, auto_renew: boolLike });
export const subscriptionOrderBody = z.object({ ids: z.array(id).max(100) });
export const userIdQuery = z.object({ user_id: id });

/**
 * Paying a plan online (issue 32; docs/ledger.md "Plans paid online"): through Epay (`zfb`
 * Alipay, `wx` WeChat Pay) or Stripe, whichever the site has configured. `money` is the plan's
 * price converted as a top-up of that quota is (Price or StripeUnitPrice × the group's top-up
 * ratio), 2 decimals; `currency` is CNY for Epay, the Stripe currency for Stripe.
 */
export const PLAN_PAY_METHODS = ['zfb', 'wx', 'stripe'] as const;
export const planPayment = z.object({ method: z.enum(PLAN_PAY_METHODS), money: z.string(), currency: z.string() }).meta({ id: 'PlanPayment' });
export type PlanPayment = z.infer<typeof planPayment>;
export const planPayable = z.object({ plan_id: z.number().int(), price: z.number().int(), methods: z.array(planPayment) }).meta({ id: 'PlanPayable' });
export type PlanPayable = z.infer<typeof planPayable>;
/** `payment_method`: one of PLAN_PAY_METHODS (`alipay`/`wxpay` too); anything else is refused by name. */
export const planPayBody = z.object({ plan_id: id, payment_method: z.string().max(16) });
/** Where the browser goes: Epay's form (`url` + signed `fields`, posted) or Stripe's hosted page (`url`, no fields). */
export const planPayOrder = z.object({ trade_no: z.string(), url: z.string(), fields: z.record(z.string(), z.string()) }).meta({ id: 'PlanPayOrder' });
export type PlanPayOrder = z.infer<typeof planPayOrder>;
export const planIdQuery = z.object({ plan_id: id });

export const planRoutes = resource('plans', {
  'GET /api/plan/': { auth: 'admin', summary: 'Every plan, on sale or not', response: apiResponse(z.array(plan)) },
  'POST /api/plan/': { auth: 'admin', summary: 'Create a plan', body: planBody, response: apiResponse(plan), audit: { action: 'plan.create', target: 'plan', targetId: 'body.name', result: true } },
  'PUT /api/plan/': { auth: 'admin', summary: 'Edit a plan (subscriptions already bought keep their terms)', body: updatePlanBody, response: apiResponse(plan), audit: { action: 'plan.update', target: 'plan', targetId: 'body.id' } },
  'DELETE /api/plan/:id': { auth: 'admin', summary: 'Delete a plan (subscriptions already bought keep running)', params: idParam, response: apiEmpty, audit: { action: 'plan.delete', target: 'plan', targetId: 'params.id' } },
  'GET /api/plan/subscriptions': { auth: 'admin', summary: "A user's subscriptions, with their meters", querystring: userIdQuery, response: apiResponse(z.array(subscription)) },
  'POST /api/plan/grant': { auth: 'admin', summary: 'Grant a plan to a user, free of charge', body: grantPlanBody, response: apiResponse(subscription), audit: { action: 'plan.grant', target: 'user', targetId: 'body.user_id' } },
  'POST /api/plan/revoke': { auth: 'admin', summary: "End a user's subscription now", body: subscriptionIdBody, response: apiEmpty, audit: { action: 'plan.revoke', target: 'plan', targetId: 'body.id' } },
  'GET /api/user/plan/available': { auth: 'user', summary: 'Plans on sale', response: apiResponse(z.array(plan)) },
  'GET /api/user/plan/': { auth: 'user', summary: 'Own subscriptions (running first, in draw order), with their meters', response: apiResponse(z.array(subscription)) },
  'POST /api/user/plan/buy': { auth: 'user', summary: 'Buy a plan with the wallet balance', body: z.object({ plan_id: id }), response: apiResponse(subscription) },
  'GET /api/user/plan/payable': { auth: 'user', summary: "What a plan on sale costs through each enabled online payment method", querystring: planIdQuery, response: apiResponse(planPayable) },
  'POST /api/user/plan/pay': {
    auth: 'user',
    summary: 'Order a plan paid online: a pending order and where the browser pays it; the confirmed payment credits the wallet and buys the plan from it, in one transaction',
    body: planPayBody,
    response: apiResponse(planPayOrder),
  },
  'POST /api/user/plan/renew': { auth: 'user', summary: 'Extend a running subscription by its duration, paid from the wallet', body: subscriptionIdBody, response: apiResponse(subscription) },
  'POST /api/user/plan/cancel': { auth: 'user', summary: 'End a subscription now (nothing is refunded)', body: subscriptionIdBody, response: apiEmpty },
  'PUT /api/user/plan/settings': { auth: 'user', summary: 'Renew a subscription automatically at its end, from the wallet', body: subscriptionSettingsBody, response: apiResponse(subscription) },
  'PUT /api/user/plan/order': { auth: 'user', summary: 'The order running subscriptions are drawn on (every running one, once)', body: subscriptionOrderBody, response: apiEmpty },
  'GET /api/user/windows': { auth: 'user', summary: "The signed-in user's windows (own limits, plans, tokens) as meters", response: apiResponse(z.array(windowMeter)) },
});
