import Stripe from 'stripe';
import type { UserRow } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { OptionsService } from '../options/options.service.js';
import type { Quote, TopUpService } from './topups.service.js';
import type { TopUpsRepository } from './topups.repository.js';

/** Currencies Stripe counts in whole units (its "zero-decimal currencies"): 5 JPY is sent as 5, 5 USD as 500. */
const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);

/** `money` in the currency's smallest unit, as Stripe's `unit_amount` and `amount_total` count it. */
export function minorUnits(money: number, currency: string): number {
  return ZERO_DECIMAL.has(currency.toLowerCase()) ? Math.round(money) : Math.round(money * 100);
}

/** A Stripe amount in the currency's usual notation (`1234` USD → `12.34 USD`). */
export function stripeMoneyText(minor: number, currency: string): string {
  const c = currency.toLowerCase();
  return `${ZERO_DECIMAL.has(c) ? String(minor) : (minor / 100).toFixed(2)} ${c.toUpperCase()}`;
}

/** On when switched on and the API key, webhook secret and server address are set (the status's `enable_stripe_topup`). */
export function stripeEnabled(o: OptionsService): boolean {
  return o.bool('StripeTopUpEnabled') && o.str('StripeApiSecret') !== '' && o.str('StripeWebhookSecret') !== '' && o.str('ServerAddress') !== '';
}

/** The amounts the wallet offers: the option's whole positive numbers, in order, without repeats. */
export function stripeAmountOptions(o: OptionsService): number[] {
  const raw = o.json<unknown>('StripeAmountOptions', []);
  const list = Array.isArray(raw) ? raw : [];
  return [...new Set(list.filter((n): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0))].sort((a, b) => a - b);
}

const clients = new Map<string, Stripe>();

/**
 * The SDK client for the configured key and API base (one per pair: the SDK keeps connections).
 * StripeApiBase (root-only) points it at a proxy or the testkit fake; empty is Stripe's own API.
 * Retries stay off: the webhook, not this call's answer, is what credits an order.
 */
export function stripeClient(o: OptionsService): Stripe {
  const key = o.str('StripeApiSecret');
  const base = o.str('StripeApiBase');
  const id = `${base}\n${key}`;
  let client = clients.get(id);
  if (!client) {
    const config: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 0, timeout: 20_000, telemetry: false };
    if (base) {
      const u = new URL(base);
      config.protocol = u.protocol === 'http:' ? 'http' : 'https';
      config.host = u.hostname;
      config.port = u.port || (u.protocol === 'http:' ? 80 : 443);
    }
    client = new Stripe(key, config);
    if (clients.size > 8) clients.clear();
    clients.set(id, client);
  }
  return client;
}

/** Why a Stripe call failed, short and without secrets: the SDK's error type and code, or the network error's. */
function stripeFailure(err: unknown): string {
  if (err instanceof Stripe.errors.StripeError) return [err.type, err.code, err.statusCode].filter(Boolean).join(' ');
  const e = err as { code?: unknown; name?: unknown };
  return String(e?.code ?? e?.name ?? 'error').slice(0, 60);
}

export interface CheckoutLog {
  error(obj: object, msg: string): void;
}

/**
 * Stripe Checkout top-up, the order half (issue 33): a pending order in `top_ups` (method
 * `stripe`), then a Checkout Session for exactly its price whose id is stored on the order. The
 * browser goes to Stripe's hosted page; only the signed webhook (stripe-webhook.ts) credits.
 */
export class StripeCheckout {
  constructor(
    private readonly deps: { options: OptionsService; topUps: TopUpsRepository; topUpService: TopUpService },
  ) {}

  private get o() {
    return this.deps.options;
  }

  quote(group: string, raw: unknown) {
    if (!stripeEnabled(this.o)) throw new AppError('TOPUP_STRIPE_DISABLED');
    return this.deps.topUpService.quoteAt(group, raw, { price: this.o.num('StripeUnitPrice'), min: this.o.num('StripeMinTopUp') });
  }

  async pay(user: Pick<UserRow, 'id' | 'group' | 'email'>, raw: unknown, log: CheckoutLog): Promise<{ url: string; trade_no: string }> {
    const q = this.quote(user.group, raw);
    return this.checkout(user, q, `TUC${q.amount}`, log);
  }

  /** The order for a quote (`planId`: a plan paid online) and its Checkout Session; `product` is what the hosted page names. */
  async checkout(user: Pick<UserRow, 'id' | 'email'>, q: Quote, product: string, log: CheckoutLog, planId?: number): Promise<{ url: string; trade_no: string }> {
    if (!stripeEnabled(this.o)) throw new AppError('TOPUP_STRIPE_DISABLED');
    const currency = (this.o.str('StripeCurrency') || 'usd').toLowerCase();
    const tradeNo = await this.deps.topUpService.newOrder(user.id, q, 'stripe', planId);
    const server = this.o.str('ServerAddress');
    // Only the trade number travels in the return URLs: the wallet reads the order's state and
    // amount from the server, so nothing a user edits in the address bar changes what is credited.
    const back = (outcome: string) => `${server}/topup?stripe=${outcome}&trade_no=${encodeURIComponent(tradeNo)}`;
    let session: Stripe.Checkout.Session;
    try {
      session = await stripeClient(this.o).checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [{ quantity: 1, price_data: { currency, unit_amount: minorUnits(q.money, currency), product_data: { name: product } } }],
          client_reference_id: tradeNo,
          metadata: { trade_no: tradeNo, user_id: String(user.id), ...(planId ? { plan_id: String(planId) } : {}) },
          // Refunds and disputes name the PaymentIntent: its metadata leads back to the order.
          payment_intent_data: { metadata: { trade_no: tradeNo } },
          ...(user.email ? { customer_email: user.email } : {}),
          success_url: back('success'),
          cancel_url: back('cancel'),
        },
        { idempotencyKey: `modelgate-${tradeNo}` },
      );
    } catch (err) {
      log.error({ err, tradeNo }, 'stripe: could not create the checkout session');
      throw await this.failed(tradeNo, `checkout not started: ${stripeFailure(err)}`);
    }
    if (!session.url) {
      log.error({ tradeNo, session: session.id }, 'stripe: the checkout session has no hosted page URL');
      throw await this.failed(tradeNo, `checkout not started: session ${session.id} has no hosted page`);
    }
    await this.deps.topUps.setGatewayRef(tradeNo, session.id);
    return { url: session.url, trade_no: tradeNo };
  }

  /**
   * The payment could not be started: the order is marked failed (not left pending for ever, no
   * session to pay on) and the user told so; the error to throw.
   */
  private async failed(tradeNo: string, note: string): Promise<AppError> {
    await this.deps.topUps.markFailed(tradeNo, note);
    return new AppError('TOPUP_STRIPE_FAILED');
  }
}
