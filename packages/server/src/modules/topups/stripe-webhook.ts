import { TopUpStatus } from '@modelgate/shared/api';
import type Stripe from 'stripe';
import type { Transaction } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';
import { nowSec } from '../../http/reply.js';
import { retryTransient } from '../../ledger/retry.js';
import { auditText, detailsJson } from '../audit/audit-entry.js';
import { outboxRow } from '../logs/log-outbox.js';
import type { OptionsService } from '../options/options.service.js';
import { minorUnits, stripeClient, stripeMoneyText } from './stripe-checkout.js';
import type { TopUpService } from './topups.service.js';
import type { StoredOrder, TopUpsRepository } from './topups.repository.js';

export interface WebhookLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** 400 tells Stripe the delivery was refused (it retries, then shows it failed); 200 acknowledges. */
export type WebhookAnswer = { status: 200 | 400; received: boolean };

type Metadata = Record<string, string> | null | undefined;

/**
 * Stripe's webhook (issue 33), verified with the endpoint's signing secret over the raw body. A
 * paid Checkout Session credits its order once: the order must be a Stripe order whose stored
 * session is this one, for the same amount and currency, and still pending — the pending → paid
 * update and the ledger's unique reference make replays and concurrent deliveries credit once.
 * Refunds and disputes are recorded on the order and in the audit log; the quota is not taken
 * back (the user may have spent it; an admin decides, with the order list and audit log to go by).
 * A refund or dispute that arrives before the payment's own event leaves the order unpayable.
 */
export class StripeWebhook {
  constructor(private readonly deps: { db: Db; options: OptionsService; topUps: TopUpsRepository; topUpService: TopUpService }) {}

  async handle(raw: Buffer, signature: string | undefined, log: WebhookLog): Promise<WebhookAnswer> {
    const secret = this.deps.options.str('StripeWebhookSecret');
    if (!secret) {
      log.warn({}, 'stripe webhook refused: no webhook secret is configured');
      return { status: 400, received: false };
    }
    let event: Stripe.Event;
    try {
      // The SDK's check: the v1 HMAC-SHA256 of `t.body` under the secret, within its 5-minute tolerance.
      event = stripeClient(this.deps.options).webhooks.constructEvent(raw, signature ?? '', secret);
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'stripe webhook refused: the signature does not verify');
      return { status: 400, received: false };
    }
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        await this.paid(event.data.object, log);
        break;
      case 'charge.refunded':
        await this.refunded(event.data.object, log);
        break;
      case 'charge.dispute.created':
        await this.disputed(event.data.object, log);
        break;
      default:
        log.info({ type: event.type, id: event.id }, 'stripe webhook: an event this site does not act on');
    }
    return { status: 200, received: true };
  }

  private async paid(session: Stripe.Checkout.Session, log: WebhookLog): Promise<void> {
    const tradeNo = session.client_reference_id ?? session.metadata?.trade_no ?? '';
    if (session.payment_status !== 'paid') {
      log.info({ tradeNo, status: session.payment_status }, 'stripe webhook: the session is not paid yet, nothing to do');
      return;
    }
    const order = await this.order(tradeNo);
    if (!order) {
      log.warn({ tradeNo, session: session.id }, 'stripe webhook: no Stripe order for this session');
      return;
    }
    if (order.gateway_ref !== session.id) {
      log.warn({ tradeNo, session: session.id, expected: order.gateway_ref }, 'stripe webhook refused: the session is not the one made for this order');
      return;
    }
    const currency = (session.currency ?? '').toLowerCase();
    if (currency !== (this.deps.options.str('StripeCurrency') || 'usd').toLowerCase() || session.amount_total !== minorUnits(order.money, currency)) {
      log.warn({ tradeNo, paid: session.amount_total, currency, expected: order.money }, 'stripe webhook refused: the amount differs from the order');
      return;
    }
    if (await this.deps.topUpService.credit(order, stripeMoneyText(session.amount_total, currency))) {
      log.info({ tradeNo, userId: order.user_id, quota: order.quota }, 'stripe top-up credited');
    }
  }

  private async refunded(charge: Stripe.Charge, log: WebhookLog): Promise<void> {
    const order = await this.order(await this.tradeNoOf(charge.payment_intent, charge.metadata));
    if (!order) {
      log.warn({ charge: charge.id }, 'stripe webhook: a refund of no Stripe order of this site');
      return;
    }
    const full = charge.refunded === true;
    const note = `${full ? 'refunded' : 'partially refunded'} ${stripeMoneyText(charge.amount_refunded, charge.currency)} of ${stripeMoneyText(charge.amount, charge.currency)} (${charge.id})`;
    await this.record(order, { action: 'topup.refund', status: full ? TopUpStatus.Refunded : undefined, note, ref: charge.id }, log);
  }

  private async disputed(dispute: Stripe.Dispute, log: WebhookLog): Promise<void> {
    const order = await this.order(await this.tradeNoOf(dispute.payment_intent, dispute.metadata));
    if (!order) {
      log.warn({ dispute: dispute.id }, 'stripe webhook: a dispute of no Stripe order of this site');
      return;
    }
    const note = `disputed ${stripeMoneyText(dispute.amount, dispute.currency)}: ${dispute.reason} (${dispute.id})`;
    await this.record(order, { action: 'topup.dispute', status: TopUpStatus.Disputed, note, ref: dispute.id }, log);
  }

  private async order(tradeNo: string): Promise<StoredOrder | undefined> {
    if (!tradeNo) return undefined;
    const order = await this.deps.topUps.stored(tradeNo);
    return order?.payment_method === 'stripe' ? order : undefined;
  }

  /** The order of a charge or dispute: its own metadata, else its PaymentIntent's (set when the session was made). */
  private async tradeNoOf(pi: string | Stripe.PaymentIntent | null, metadata: Metadata): Promise<string> {
    if (metadata?.trade_no) return metadata.trade_no;
    if (!pi) return '';
    if (typeof pi !== 'string') return pi.metadata?.trade_no ?? '';
    const intent = await stripeClient(this.deps.options).paymentIntents.retrieve(pi);
    return intent.metadata?.trade_no ?? '';
  }

  /** The order's new status and note and the audit entry, in one transaction; a replay changes and records nothing. */
  private async record(order: StoredOrder, r: { action: 'topup.refund' | 'topup.dispute'; status?: string; note: string; ref: string }, log: WebhookLog): Promise<void> {
    const { db, topUps } = this.deps;
    const changed = await retryTransient(() =>
      db.db.transaction().execute(async (t) => {
        if (!(await topUps.recordAfterPayment(t, order.trade_no, { status: r.status, note: r.note }))) return false;
        await this.audit(t, order, r);
        return true;
      }),
    );
    if (changed) log.warn({ tradeNo: order.trade_no, userId: order.user_id, status: r.status ?? order.status, note: r.note }, `stripe webhook: ${r.action} recorded`);
  }

  private async audit(t: Transaction<Database>, order: StoredOrder, r: { action: string; status?: string; note: string; ref: string }): Promise<void> {
    const row = {
      created_at: nowSec(),
      // No person acted: the payment service did. Actor 0 is nobody's id.
      actor_id: 0,
      actor_name: 'stripe',
      actor_role: 0,
      ip: '',
      user_agent: '',
      action: r.action,
      target_type: 'topup',
      target_id: auditText(order.trade_no, 191),
      success: 1,
      message: auditText(r.note, 500),
      details: detailsJson({
        request: { user_id: order.user_id, username: order.username, money: order.money, quota: order.quota, stripe_id: r.ref },
        changes: [
          ...(r.status && r.status !== order.status ? [{ field: 'status', before: order.status, after: r.status }] : []),
          { field: 'note', before: order.note, after: r.note },
        ],
      }),
    };
    // With a separate log database the row waits in this one's outbox (the audit writer does the same).
    if (this.deps.db.logsElsewhere) await t.insertInto('log_outbox').values(outboxRow('audit', row)).execute();
    else await t.insertInto('audit_logs').values(row).execute();
  }
}
