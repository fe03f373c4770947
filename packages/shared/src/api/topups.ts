import { z } from 'zod';
import { resource } from './contract.js';
import { apiResponse, paged } from './envelope.js';
import { pageQuery, queryText } from './fields.js';

/** The states of an online top-up order (`top_ups.status`, the reference's strings). */
/** `failed`: the payment service could not start the payment (no checkout was made), so nothing can be paid on it. */
export const TopUpStatus = { Pending: 'pending', Success: 'success', Failed: 'failed', Refunded: 'refunded', Disputed: 'disputed' } as const;
export type TopUpStatusValue = (typeof TopUpStatus)[keyof typeof TopUpStatus];

/**
 * An online top-up order. `amount` is what the user asked for in the site's display unit (dollars,
 * or quota units when currency display is off), `quota` what a confirmed payment credits (fixed
 * when the order is made), `money` what the gateway charges. A plan paid online is an order too:
 * `plan_id` names the plan, `amount` is 0 and `quota` the plan's price when it was ordered.
 */
export const topUpOrder = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    username: z.string(),
    amount: z.number().int(),
    quota: z.number().int(),
    money: z.number(),
    trade_no: z.string(),
    /** The gateway's payment type: alipay, wxpay, stripe. */
    payment_method: z.string(),
    create_time: z.number().int(),
    /** Unix seconds of the confirmed payment, 0 while pending. */
    complete_time: z.number().int(),
    status: z.string(),
    /** What the payment service reported after the payment (a refund, a dispute), empty otherwise. */
    note: z.string(),
    /** The plan this order pays for (a plan paid online); 0 for a top-up. */
    plan_id: z.number().int(),
    /** The subscription a paid plan order bought; 0 otherwise. */
    subscription_id: z.number().int(),
    /** Why a paid plan order bought no plan (a server message code; the payment stayed in the balance); '' otherwise. */
    plan_error: z.string(),
  })
  .meta({ id: 'TopUpOrder' });
export type TopUpOrder = z.infer<typeof topUpOrder>;

/**
 * `amount` as the console typed it: the service refuses what is not a whole number with its own
 * message. `top_up_code` is accepted for the reference console's sake and unused.
 */
export const topUpAmountBody = z.object({
  amount: z.union([z.number(), z.string()]).optional(),
  top_up_code: z.string().optional(),
});
/** `payment_method`: `zfb` (Alipay) or `wx` (WeChat Pay), as the reference console sends them. */
export const topUpPayBody = topUpAmountBody.extend({ payment_method: z.string().optional() });
export type TopUpAmountBody = z.input<typeof topUpAmountBody>;
export type TopUpPayBody = z.input<typeof topUpPayBody>;

/**
 * The reference signals these two answers with `message:"success"` (G10) and a failure with the
 * text in `data` too: both consoles read them. Failures before the handler (no session) are the
 * usual envelope.
 */
const failureWithText = z.object({ success: z.literal(false), message: z.string(), data: z.string().optional() });
export const topUpAmountResponse = z.discriminatedUnion('success', [
  z.object({ success: z.literal(true), message: z.literal('success'), data: z.string() }),
  failureWithText,
]);
/** The form the browser posts to the gateway: `url` plus the signed fields. */
export const topUpPayResponse = z.discriminatedUnion('success', [
  z.object({ success: z.literal(true), message: z.literal('success'), data: z.record(z.string(), z.string()), url: z.string() }),
  failureWithText,
]);

/**
 * What an Epay gateway sends to the notify URL (query string, or a form for POST). Unknown fields
 * are kept: the signature covers every non-empty field the gateway sent.
 */
export const epayNotifyParams = z.looseObject({
  pid: z.string().optional(),
  trade_no: z.string().optional(),
  out_trade_no: z.string().optional(),
  type: z.string().optional(),
  name: z.string().optional(),
  money: z.string().optional(),
  trade_status: z.string().optional(),
  sign: z.string().optional(),
  sign_type: z.string().optional(),
});
const notifyAnswer = z.string().meta({ description: 'Plain text: `success` (acknowledged; repeats change nothing) or `fail`.' });

/** `POST /api/user/stripe/pay`: the amount, as for the Epay order. */
export const stripePayResponse = z.discriminatedUnion('success', [
  z.object({ success: z.literal(true), message: z.literal('success'), data: z.object({ url: z.string(), trade_no: z.string() }) }),
  failureWithText,
]);
const stripeWebhookAnswer = z.object({ received: z.boolean() }).meta({ description: 'What Stripe reads: 2xx acknowledges the event; a refused signature is 400.' });

export const topUpOrderQuery = pageQuery.extend({ keyword: queryText, status: queryText });

export const topUpRoutes = resource('topups', {
  'POST /api/user/amount': {
    auth: 'user',
    summary: 'What an online top-up of `amount` costs (Price × the group’s top-up ratio), 2 decimals',
    body: topUpAmountBody,
    response: topUpAmountResponse,
  },
  'POST /api/user/pay': {
    auth: 'user',
    summary: 'Create a pending top-up order; answers the signed gateway form',
    body: topUpPayBody,
    response: topUpPayResponse,
  },
  'GET /api/user/epay/notify': {
    auth: 'public',
    summary: 'Epay payment notification (signed query string)',
    querystring: epayNotifyParams,
    response: notifyAnswer,
  },
  'POST /api/user/epay/notify': {
    auth: 'public',
    summary: 'Epay payment notification (signed form)',
    consumes: ['application/x-www-form-urlencoded'],
    body: epayNotifyParams,
    response: notifyAnswer,
  },
  'POST /api/user/stripe/amount': {
    auth: 'user',
    summary: 'What a Stripe top-up of `amount` costs (StripeUnitPrice × the group’s top-up ratio), 2 decimals',
    body: topUpAmountBody,
    response: topUpAmountResponse,
  },
  'POST /api/user/stripe/pay': {
    auth: 'user',
    summary: 'Create a pending Stripe order and its Checkout Session; answers the hosted page URL',
    body: topUpAmountBody,
    response: stripePayResponse,
  },
  'POST /api/stripe/webhook': {
    auth: 'public',
    summary: 'Stripe webhook events (signed with the endpoint secret): a paid Checkout Session credits its order once; refunds and disputes are recorded',
    consumes: ['application/json'],
    body: z.unknown(),
    response: stripeWebhookAnswer,
    responses: { 400: stripeWebhookAnswer },
  },
  'GET /api/topup/self': {
    auth: 'user',
    summary: 'One own top-up order by trade number (the wallet after the gateway returns)',
    querystring: z.object({ trade_no: queryText }),
    response: apiResponse(topUpOrder),
  },
  'GET /api/topup/': {
    auth: 'admin',
    summary: 'Top-up orders, newest first, by trade number or username and status, paged',
    querystring: topUpOrderQuery,
    response: apiResponse(paged(topUpOrder)),
  },
});
