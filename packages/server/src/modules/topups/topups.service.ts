import { LogType, QUOTA_MAX, quotaLogText, serverMessage } from '@modelgate/shared';
import type { TopUpOrder } from '@modelgate/shared/api';
import type { Db } from '../../db/client.js';
import type { UserRow } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { nowSec } from '../../http/reply.js';
import type { QuotaLedger } from '../../ledger/quota-ledger.js';
import { retryTransient } from '../../ledger/retry.js';
import { recordLog } from '../logs/log-writer.js';
import type { OptionsService } from '../options/options.service.js';
import type { PlansService } from '../plans/plans.service.js';
import { randomAlnum } from '../users/password.js';
import { epaySign, epayType, epayVerify, notifyFields } from './epay.js';
import type { TopUpsRepository } from './topups.repository.js';

export interface TopUpServiceDeps {
  db: Db;
  topUps: TopUpsRepository;
  options: OptionsService;
  quotaLedger: QuotaLedger;
  /** Buys the plan of a paid plan order from what the payment credited (plans.service.ts). */
  plans: Pick<PlansService, 'buyPaid' | 'afterPaid'>;
}

/** What an amount buys and costs. */
export interface Quote {
  amount: number;
  quota: number;
  /** Yuan, rounded to the cent. */
  money: number;
}

/** The form the browser posts to the gateway. */
export interface PayForm {
  url: string;
  fields: Record<string, string>;
}

/** Where a notification's outcome is logged (the request's logger). */
export interface NotifyLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What the notify endpoint answers the gateway. */
export type NotifyAnswer = 'success' | 'fail';

const TRADE_SUCCESS = 'TRADE_SUCCESS';

/**
 * Online top-up through an Epay gateway (reference §7 "Epay"): quotes, pending orders with a
 * signed form for the browser, and the signed notification that credits a paid order exactly once.
 */
export class TopUpService {
  constructor(private readonly deps: TopUpServiceDeps) {}

  private get o() {
    return this.deps.options;
  }

  /** On when the gateway address, merchant id and key are all set (the status's `enable_online_topup`). */
  get enabled(): boolean {
    return this.o.str('PayAddress') !== '' && this.o.str('EpayId') !== '' && this.o.str('EpayKey') !== '';
  }

  private display() {
    return { quotaPerUnit: this.o.num('QuotaPerUnit'), displayInCurrency: this.o.bool('DisplayInCurrencyEnabled') };
  }

  /**
   * `amount` is in the site's display unit: whole dollars, or quota units when currency display is
   * off (then MinTopUp counts dollars' worth of units, as in the reference).
   */
  quote(group: string, raw: unknown): Quote {
    if (!this.enabled) throw new AppError('TOPUP_ONLINE_DISABLED');
    return this.quoteAt(group, raw, { price: this.o.num('Price'), min: this.o.num('MinTopUp') });
  }

  /** A quote at `price` per dollar's worth (Epay's Price, Stripe's StripeUnitPrice) with `min` as MinTopUp. */
  quoteAt(group: string, raw: unknown, at: { price: number; min: number }): Quote {
    const amount = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(amount) || amount < 1) throw new AppError('TOPUP_AMOUNT_INVALID');
    const { quotaPerUnit, displayInCurrency } = this.display();
    const min = displayInCurrency ? at.min : at.min * quotaPerUnit;
    if (amount < min) throw new AppError('TOPUP_AMOUNT_TOO_LOW', 200, String(min));
    const quota = displayInCurrency ? Math.round(amount * quotaPerUnit) : amount;
    if (!Number.isSafeInteger(quota) || quota > QUOTA_MAX) throw new AppError('TOPUP_AMOUNT_TOO_HIGH');
    return { amount, quota, money: this.moneyFor(group, quota, at.price) };
  }

  /** What `quota` costs at `price` per dollar's worth × the group's top-up ratio, to the cent (a top-up's amount, a plan's price). */
  moneyFor(group: string, quota: number, price: number): number {
    const ratios = this.o.json<Record<string, unknown>>('TopupGroupRatio', {});
    const ratio = Number(ratios?.[group]) > 0 ? Number(ratios[group]) : 1;
    const money = Math.round((quota / this.display().quotaPerUnit) * price * ratio * 100) / 100;
    if (!(money >= 0.01)) throw new AppError('TOPUP_MONEY_TOO_LOW');
    if (!Number.isFinite(money) || money > 1e12) throw new AppError('TOPUP_AMOUNT_TOO_HIGH');
    return money;
  }

  /** Creates a pending order and the signed form that takes the browser to the gateway. */
  async pay(user: Pick<UserRow, 'id' | 'group'>, raw: unknown, method: string | undefined): Promise<PayForm> {
    const q = this.quote(user.group, raw);
    return this.epayOrder(user.id, q, method, `TUC${q.amount}`);
  }

  /**
   * A pending Epay order for the quote (`planId`: a plan paid online) and the signed form; `name`
   * is what the gateway shows the payer.
   */
  async epayOrder(userId: number, q: Quote, method: string | undefined, name: string, planId?: number): Promise<PayForm & { tradeNo: string }> {
    if (!this.enabled) throw new AppError('TOPUP_ONLINE_DISABLED');
    const server = this.o.str('ServerAddress');
    if (!server) throw new AppError('OPTION_SERVER_ADDRESS_FIRST');
    const type = epayType(method);
    if (!type) throw new AppError('TOPUP_PAYMENT_METHOD_INVALID');
    const tradeNo = await this.newOrder(userId, q, type, planId);
    const callback = this.o.str('CustomCallbackAddress') || server;
    const fields: Record<string, string> = {
      pid: this.o.str('EpayId'),
      type,
      out_trade_no: tradeNo,
      notify_url: `${callback}/api/user/epay/notify`,
      return_url: `${server}/topup`,
      name,
      money: q.money.toFixed(2),
      device: 'pc',
    };
    fields.sign = epaySign(fields, this.o.str('EpayKey'));
    fields.sign_type = 'MD5';
    return { url: `${this.o.str('PayAddress')}/submit.php`, fields, tradeNo };
  }

  /** Stores a pending order for the quote; answers its new trade number. */
  async newOrder(userId: number, q: Quote, method: string, planId?: number): Promise<string> {
    for (let i = 0; i < 5; i++) {
      const candidate = `USR${userId}NO${randomAlnum(6)}${nowSec()}`;
      const row = { user_id: userId, amount: q.amount, quota: q.quota, money: q.money, trade_no: candidate, payment_method: method, create_time: nowSec() };
      const inserted = await this.deps.topUps.insert(planId ? { ...row, plan_id: planId } : row);
      if (inserted) return candidate;
    }
    throw new AppError('TOPUP_ORDER_FAILED');
  }

  ownOrder(userId: number, tradeNo: string | undefined): Promise<TopUpOrder> {
    return this.deps.topUps.findByTradeNo(tradeNo?.trim() ?? '', userId).then((o) => {
      if (!o) throw new AppError('TOPUP_ORDER_NOT_FOUND');
      return o;
    });
  }

  /**
   * A gateway notification. `fail` for anything that cannot be trusted or matched (a bad
   * signature, another merchant, an unknown trade number, a different amount: each logged as a
   * warning, nothing credited); `success` once the order is paid, however often it is repeated.
   */
  async notify(raw: Readonly<Record<string, unknown>>, log: NotifyLog): Promise<NotifyAnswer> {
    const p = notifyFields(raw);
    const tradeNo = p?.out_trade_no ?? '';
    if (!p || !epayVerify(p, this.o.str('EpayKey'))) {
      log.warn({ tradeNo }, 'epay notify refused: the signature does not match the merchant key');
      return 'fail';
    }
    if (p.pid !== this.o.str('EpayId')) {
      log.warn({ tradeNo, pid: p.pid }, 'epay notify refused: another merchant id');
      return 'fail';
    }
    if (p.trade_status !== TRADE_SUCCESS) {
      log.info({ tradeNo, status: p.trade_status }, 'epay notify: not a successful payment, nothing to do');
      return 'success';
    }
    const order = await this.deps.topUps.findByTradeNo(tradeNo);
    if (!order) {
      log.warn({ tradeNo }, 'epay notify refused: unknown trade number');
      return 'fail';
    }
    if (Number(p.money).toFixed(2) !== order.money.toFixed(2)) {
      log.warn({ tradeNo, paid: p.money, expected: order.money.toFixed(2) }, 'epay notify refused: the amount differs from the order');
      return 'fail';
    }
    if (await this.credit(order)) log.info({ tradeNo, userId: order.user_id, quota: order.quota }, 'epay top-up credited');
    return 'success';
  }

  /**
   * Marks the order paid and credits it, in one transaction; false when it was not pending any
   * more (paid already, or refunded or disputed before the payment's own event came). `paid` is
   * the amount as the top-up log shows it (Stripe's carries its currency). A plan order's plan is
   * bought from the credit in the same transaction; when it cannot be, the credit stays in the
   * wallet and the order says why (docs/ledger.md "Plans paid online").
   */
  async credit(order: TopUpOrder, paid = order.money.toFixed(2)): Promise<boolean> {
    const { db, topUps, quotaLedger, plans } = this.deps;
    // Orders from before migration 0007 carry no quota: the reference credited amount × QuotaPerUnit.
    const quota = order.quota > 0 ? order.quota : Math.round(order.amount * this.display().quotaPerUnit);
    const credited = await retryTransient(() =>
      db.db.transaction().execute(async (t) => {
        if (!(await topUps.markPaid(t, order.trade_no, nowSec()))) return false;
        const moved = await quotaLedger.move({ kind: 'topup', userId: order.user_id, quota, ref: order.trade_no }, t);
        if (moved !== 'applied') throw new Error(`top-up ${order.trade_no}: the ledger answered ${moved}`);
        let content = `在线充值成功，充值额度：${quotaLogText(quota, this.display())}，支付金额：${paid}，订单号：${order.trade_no}`;
        if (order.plan_id) {
          const outcome = await plans.buyPaid(t, order, quota);
          if ('error' in outcome) {
            const note = `plan #${order.plan_id} not bought: ${serverMessage(outcome.error, 'en')}; the payment stays in the balance`;
            await topUps.recordPlanOutcome(t, order.trade_no, { plan_error: outcome.error, note });
            content += `，套餐未能购买（${serverMessage(outcome.error, 'zh')}），额度已留在余额中`;
          } else {
            await topUps.recordPlanOutcome(t, order.trade_no, { subscription_id: outcome.subscriptionId });
            content += `，已用于购买套餐「${outcome.name}」`;
          }
        }
        await recordLog(db, { userId: order.user_id, username: order.username, type: LogType.Topup, content, quota }, t);
        return true;
      }),
    );
    if (credited && order.plan_id) plans.afterPaid(order.user_id);
    return credited;
  }
}
