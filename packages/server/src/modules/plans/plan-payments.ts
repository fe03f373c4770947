import { PlanStatus, type PlanPayable, type PlanPayment, type PlanPayOrder } from '@modelgate/shared/api';
import type { UserRow } from '../../db/schema.js';
import type { PlanRow } from '../../db/schema-plans.js';
import { AppError } from '../../http/errors.js';
import type { OptionsService } from '../options/options.service.js';
import { epayType } from '../topups/epay.js';
import { StripeCheckout, stripeEnabled, type CheckoutLog } from '../topups/stripe-checkout.js';
import type { TopUpsRepository } from '../topups/topups.repository.js';
import type { Quote, TopUpService } from '../topups/topups.service.js';
import type { PlansRepository } from './plans.repository.js';

/**
 * Plans paid online (issue 32; docs/ledger.md "Plans paid online"), the order half: a pending
 * top-up order whose `plan_id` names the plan and whose quota is the plan's price, charged as a
 * top-up of that quota is (Epay's Price or StripeUnitPrice × the group's top-up ratio). MinTopUp
 * does not apply: the administrator set the price. The confirmed payment (the same notify and
 * webhook as top-ups, TopUpService.credit) credits the wallet and buys the plan from it.
 */
export class PlanPayments {
  private readonly stripe: StripeCheckout;

  constructor(private readonly deps: { plansRepo: PlansRepository; options: OptionsService; topUps: TopUpsRepository; topUpService: TopUpService }) {
    this.stripe = new StripeCheckout(deps);
  }

  private get o() {
    return this.deps.options;
  }

  /** A plan that can be paid online: on sale and not free. */
  private async payablePlan(planId: number): Promise<PlanRow> {
    const plan = await this.deps.plansRepo.get(planId);
    if (!plan) throw new AppError('PLAN_NOT_FOUND');
    if (Number(plan.status) !== PlanStatus.OnSale) throw new AppError('PLAN_NOT_FOR_SALE');
    if (Number(plan.price) <= 0) throw new AppError('PLAN_PAY_FREE');
    return plan;
  }

  private quote(group: string, plan: PlanRow, unitPrice: number): Quote {
    const quota = Number(plan.price);
    return { amount: 0, quota, money: this.deps.topUpService.moneyFor(group, quota, unitPrice) };
  }

  private stripeCurrency(): string {
    return (this.o.str('StripeCurrency') || 'usd').toUpperCase();
  }

  /** The enabled methods and what the plan costs through each; refused when none is enabled. */
  async payable(user: Pick<UserRow, 'group'>, planId: number): Promise<PlanPayable> {
    const plan = await this.payablePlan(planId);
    const methods: PlanPayment[] = [];
    if (this.deps.topUpService.enabled) {
      const money = this.quote(user.group, plan, this.o.num('Price')).money.toFixed(2);
      methods.push({ method: 'zfb', money, currency: 'CNY' }, { method: 'wx', money, currency: 'CNY' });
    }
    if (stripeEnabled(this.o)) methods.push({ method: 'stripe', money: this.quote(user.group, plan, this.o.num('StripeUnitPrice')).money.toFixed(2), currency: this.stripeCurrency() });
    if (!methods.length) throw new AppError('PLAN_PAY_DISABLED');
    return { plan_id: Number(plan.id), price: Number(plan.price), methods };
  }

  /** A pending plan order and where the browser pays it. */
  async pay(user: Pick<UserRow, 'id' | 'group' | 'email'>, planId: number, method: string, log: CheckoutLog): Promise<PlanPayOrder> {
    // A method no gateway knows is named as such first: on a site with Stripe only, "paypal" is not "Epay is off".
    if (method !== 'stripe' && !epayType(method)) throw new AppError('TOPUP_PAYMENT_METHOD_INVALID');
    const plan = await this.payablePlan(planId);
    if (method === 'stripe') {
      if (!stripeEnabled(this.o)) throw new AppError('TOPUP_STRIPE_DISABLED');
      const session = await this.stripe.checkout(user, this.quote(user.group, plan, this.o.num('StripeUnitPrice')), plan.name, log, Number(plan.id));
      return { trade_no: session.trade_no, url: session.url, fields: {} };
    }
    const svc = this.deps.topUpService;
    if (!svc.enabled) throw new AppError('TOPUP_ONLINE_DISABLED');
    // The gateway shows the payer `name`; plain ASCII, as gateways of that family sign it as sent.
    const form = await svc.epayOrder(user.id, this.quote(user.group, plan, this.o.num('Price')), method, `PLAN${plan.id}`, Number(plan.id));
    return { trade_no: form.tradeNo, url: form.url, fields: form.fields };
  }
}
