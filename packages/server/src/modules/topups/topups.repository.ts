import { TopUpStatus, type TopUpOrder } from '@modelgate/shared/api';
import type { Transaction } from 'kysely';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';

export interface NewOrder {
  user_id: number;
  amount: number;
  quota: number;
  money: number;
  trade_no: string;
  payment_method: string;
  create_time: number;
  /** The payment service's id for the order, when it has one before the payment (Stripe's Checkout Session). */
  gateway_ref?: string;
  /** The plan a plan order pays for (absent: a top-up). */
  plan_id?: number;
}

const COLUMNS = ['t.id', 't.user_id', 't.amount', 't.quota', 't.money', 't.trade_no', 't.payment_method', 't.create_time', 't.complete_time', 't.status', 't.gateway_ref', 't.note', 't.plan_id', 't.subscription_id', 't.plan_error'] as const;

function order(row: Record<string, unknown>): TopUpOrder {
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    username: row.username == null ? '' : String(row.username),
    amount: Number(row.amount),
    quota: Number(row.quota),
    money: Number(row.money),
    trade_no: String(row.trade_no),
    payment_method: String(row.payment_method ?? ''),
    create_time: Number(row.create_time),
    complete_time: Number(row.complete_time),
    status: String(row.status),
    note: String(row.note ?? ''),
    plan_id: Number(row.plan_id ?? 0),
    subscription_id: Number(row.subscription_id ?? 0),
    plan_error: String(row.plan_error ?? ''),
  };
}

/** An order with the payment service's id for it (not part of the API's order). */
export type StoredOrder = TopUpOrder & { gateway_ref: string };

/** Online top-up orders (`top_ups`). */
export class TopUpsRepository {
  constructor(private readonly handle: Db) {}

  private base() {
    return this.handle.db.selectFrom('top_ups as t').leftJoin('users as u', 'u.id', 't.user_id');
  }

  /** Inserts a pending order; false when the trade number is taken (the caller draws another). */
  async insert(o: NewOrder): Promise<boolean> {
    try {
      await this.handle.db.insertInto('top_ups').values({ ...o, status: TopUpStatus.Pending }).execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async findByTradeNo(tradeNo: string, userId?: number): Promise<TopUpOrder | undefined> {
    const row = await this.stored(tradeNo, userId);
    if (!row) return undefined;
    const { gateway_ref: _ref, ...rest } = row;
    return rest;
  }

  /** The order with its gateway reference (payment code only; the API's order leaves it out). */
  async stored(tradeNo: string, userId?: number): Promise<StoredOrder | undefined> {
    let q = this.base().select([...COLUMNS, 'u.username']).where('t.trade_no', '=', tradeNo);
    if (userId !== undefined) q = q.where('t.user_id', '=', userId);
    const row = await q.executeTakeFirst();
    return row ? { ...order(row), gateway_ref: String(row.gateway_ref ?? '') } : undefined;
  }

  /** Sets the payment service's id of a pending order, once (the order is made before the service answers). */
  async setGatewayRef(tradeNo: string, ref: string): Promise<void> {
    await this.handle.db.updateTable('top_ups').set({ gateway_ref: ref }).where('trade_no', '=', tradeNo).where('gateway_ref', '=', '').execute();
  }

  /**
   * Records what the payment service reported after (or before) the payment: a note, and a status
   * when the order's money is gone (a full refund, a dispute). False when the order already says
   * exactly that (a replayed event), so the caller records it in the audit log once.
   */
  async recordAfterPayment(t: Transaction<Database>, tradeNo: string, change: { status?: string; note: string }): Promise<boolean> {
    let q = t.updateTable('top_ups').set({ note: change.note, ...(change.status ? { status: change.status } : {}) }).where('trade_no', '=', tradeNo);
    q = change.status ? q.where((eb) => eb.or([eb('note', '!=', change.note), eb('status', '!=', change.status!)])) : q.where('note', '!=', change.note);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Pending → success, once: the transaction's first statement and its only guard besides the
   * ledger's unique reference. A replayed or concurrent notification finds nothing to change.
   */
  async markPaid(t: Transaction<Database>, tradeNo: string, now: number): Promise<boolean> {
    const r = await t
      .updateTable('top_ups')
      .set({ status: TopUpStatus.Success, complete_time: now })
      .where('trade_no', '=', tradeNo)
      // A payment reported for an order marked failed (its session was made after all, e.g. the
      // answer was lost on the way back) is money received: it is credited like a pending one.
      .where('status', 'in', [TopUpStatus.Pending, TopUpStatus.Failed])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * What a paid plan order came to (inside its payment's transaction): the subscription it bought,
   * or why it bought none (a server message code, and a note for the admin's order list).
   */
  async recordPlanOutcome(t: Transaction<Database>, tradeNo: string, outcome: { subscription_id: number } | { plan_error: string; note: string }): Promise<void> {
    await t.updateTable('top_ups').set(outcome).where('trade_no', '=', tradeNo).execute();
  }

  /**
   * An order whose payment could not be started (the payment service refused or could not be
   * reached): failed, with the reason, so it does not wait as pending forever. Only a pending order.
   */
  async markFailed(tradeNo: string, note: string): Promise<boolean> {
    const r = await this.handle.db
      .updateTable('top_ups')
      .set({ status: TopUpStatus.Failed, note })
      .where('trade_no', '=', tradeNo)
      .where('status', '=', TopUpStatus.Pending)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Newest first; `keyword` is part of a trade number or a username, `status` one of TopUpStatus. */
  async search(f: { keyword?: string; status?: string; offset: number; limit: number }): Promise<{ items: TopUpOrder[]; total: number }> {
    let q = this.base();
    const keyword = f.keyword?.trim() ?? '';
    if (keyword) q = q.where((eb) => eb.or([eb('t.trade_no', 'like', `%${keyword}%`), eb('u.username', '=', keyword)]));
    const status = f.status?.trim() ?? '';
    if (status) q = q.where('t.status', '=', status);
    const [rows, count] = await Promise.all([
      q.select([...COLUMNS, 'u.username']).orderBy('t.id', 'desc').limit(f.limit).offset(f.offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(order), total: Number(count.n) };
  }
}
