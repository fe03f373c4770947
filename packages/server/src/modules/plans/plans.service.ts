import { formatQuota, hasPeriodLimits, resolveTimeZone, serialisePeriodLimits, type PeriodLimits, type WindowMeter } from '@modelgate/shared';
import { PlanStatus, SubscriptionStatus, type Plan, type Subscription } from '@modelgate/shared/api';
import type { Transaction } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Database, PlanRow, UserPlanRow } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { nowSec } from '../../http/reply.js';
import type { QuotaLedger } from '../../ledger/quota-ledger.js';
import { retryTransient } from '../../ledger/retry.js';
import type { OptionsService } from '../options/options.service.js';
import { planView, subscriptionView } from './plan-view.js';
import type { PlansRepository } from './plans.repository.js';
import { planSource, tokenSource, userSource, windowMeters, type MeterSource } from './window-meters.js';

/** Subscriptions one user may have running at once. */
export const MAX_ACTIVE_SUBSCRIPTIONS = 20;
const DAY_SEC = 86_400;

export interface PlanInput {
  name?: string;
  description?: string;
  price?: number;
  duration_days?: number;
  allowances?: PeriodLimits;
  models?: string;
  groups?: string;
  fall_through?: boolean;
  status?: number;
}

/** A comma list trimmed, without empties and repeats. */
function names(list: string | undefined): string {
  return [...new Set((list ?? '').split(',').map((s) => s.trim()).filter(Boolean))].join(',');
}

/** What a paid plan order came to: the subscription bought, or why none was (a server message code). */
export type PaidPlanOutcome = { subscriptionId: number; name: string } | { error: 'PLAN_PAID_PLAN_GONE' | 'PLAN_PAID_OFF_SALE' | 'PLAN_PAID_PRICE_RAISED' | 'PLAN_PAID_TOO_MANY' };

/** Thrown inside a purchase's transaction to roll it back: the wallet does not cover the price. */
class ShortBalance extends Error {}

/**
 * Plans and subscriptions (docs/ledger.md "Windows and plans"). A purchase or renewal is one
 * transaction: the subscription row and the wallet debit (a `plan` ledger entry whose `ref` names
 * the subscription and the renewal, so it applies once) commit together or not at all. Every
 * change to a user's running subscriptions drops the user from every node's relay cache.
 */
export class PlansService {
  constructor(
    private readonly deps: {
      db: Db;
      repo: PlansRepository;
      quotaLedger: Pick<QuotaLedger, 'move'>;
      options: Pick<OptionsService, 'str' | 'num' | 'bool'>;
      /** A user's running subscriptions changed: the relay's cached user is dropped on every node. */
      onUserChange: (userId: number) => void;
    },
  ) {}

  private get repo() {
    return this.deps.repo;
  }

  private timeZone(): string {
    return resolveTimeZone(this.deps.options.str('TimeZone'));
  }

  private money(quota: number): string {
    const o = this.deps.options;
    return formatQuota(quota, { quotaPerUnit: o.num('QuotaPerUnit'), displayInCurrency: o.bool('DisplayInCurrencyEnabled') });
  }

  private async transact<T>(fn: (t: Transaction<Database>) => Promise<T>): Promise<T> {
    return retryTransient(() => this.deps.db.db.transaction().execute(fn));
  }

  // ---- plans (admin) ----

  async listPlans(onSaleOnly = false): Promise<Plan[]> {
    const [rows, counts] = await Promise.all([this.repo.list(onSaleOnly), onSaleOnly ? Promise.resolve(new Map<number, number>()) : this.repo.activeCounts()]);
    return rows.map((r) => planView(r, counts.get(Number(r.id)) ?? 0));
  }

  private fields(input: PlanInput, current?: PlanRow) {
    const name = (input.name ?? current?.name ?? '').trim();
    if (!name) throw new AppError('PLAN_NAME_REQUIRED');
    const allowances = input.allowances ?? undefined;
    const stored = allowances !== undefined ? serialisePeriodLimits(allowances) : (current?.allowances ?? '');
    if (!stored) throw new AppError('PLAN_ALLOWANCE_REQUIRED');
    return {
      name,
      description: input.description ?? current?.description ?? '',
      price: input.price ?? Number(current?.price ?? 0),
      duration_days: input.duration_days ?? Number(current?.duration_days ?? 30),
      allowances: stored,
      models: input.models !== undefined ? names(input.models) : (current?.models ?? ''),
      groups: input.groups !== undefined ? names(input.groups) : (current?.groups ?? ''),
      fall_through: input.fall_through !== undefined ? (input.fall_through ? 1 : 0) : Number(current?.fall_through ?? 1),
      status: input.status ?? Number(current?.status ?? PlanStatus.OnSale),
    };
  }

  async createPlan(input: PlanInput): Promise<Plan> {
    const now = nowSec();
    const row = { ...this.fields(input), created_at: now, updated_at: now };
    const id = await this.repo.insert(row);
    return planView({ ...row, id }, 0);
  }

  async updatePlan(id: number, input: PlanInput): Promise<Plan> {
    const current = await this.repo.get(id);
    if (!current) throw new AppError('PLAN_NOT_FOUND');
    const row = { ...this.fields(input, current), updated_at: nowSec() };
    await this.repo.update(id, row);
    return planView({ ...current, ...row }, (await this.repo.activeCounts()).get(id) ?? 0);
  }

  async deletePlan(id: number): Promise<void> {
    if (!(await this.repo.remove(id))) throw new AppError('PLAN_NOT_FOUND');
  }

  // ---- subscriptions ----

  /** A user's subscriptions with their meters: running ones first, in draw order. */
  async subscriptionsOf(userId: number): Promise<Subscription[]> {
    const rows = await this.repo.subscriptions(userId);
    const running = rows.filter((r) => Number(r.status) === SubscriptionStatus.Active);
    const meters = await windowMeters(this.deps.db, running.map(planSource), this.timeZone(), nowSec());
    return rows.map((r) => subscriptionView(r, meters.filter((m) => m.scope === 'plan' && m.id === Number(r.id))));
  }

  private async subscriptionOf(userId: number, id: number): Promise<Subscription> {
    const found = (await this.subscriptionsOf(userId)).find((s) => s.id === id);
    if (!found) throw new AppError('PLAN_SUBSCRIPTION_NOT_FOUND');
    return found;
  }

  /** The subscription row of a new purchase or grant of `plan`, inside `t`: drawn after the user's `running` ones. */
  private newSubscription(t: Transaction<Database>, userId: number, plan: PlanRow, grantedBy: number, running: UserPlanRow[]): Promise<number> {
    const now = nowSec();
    const days = Number(plan.duration_days);
    return this.repo.insertSubscription(t, {
      user_id: userId,
      plan_id: Number(plan.id),
      name: plan.name,
      allowances: plan.allowances,
      models: plan.models,
      groups: plan.groups,
      fall_through: Number(plan.fall_through),
      price: Number(plan.price),
      duration_days: days,
      status: SubscriptionStatus.Active,
      priority: running.reduce((m, r) => Math.max(m, Number(r.priority)), -1) + 1,
      starts_at: now,
      expires_at: days > 0 ? now + days * DAY_SEC : 0,
      granted_by: grantedBy,
      created_at: now,
    });
  }

  /** The wallet debit of a purchase (a `plan` ledger entry, once per subscription). */
  private async debit(t: Transaction<Database>, userId: number, subId: number, price: number): Promise<boolean> {
    return price <= 0 || (await this.deps.quotaLedger.move({ kind: 'plan', userId, quota: -price, ref: `plan:${subId}:0` }, t)) === 'applied';
  }

  /**
   * A new subscription to `planId`: paid from the wallet (`grantedBy` 0) or granted by an admin.
   * Drawn after the user's running ones.
   */
  private async subscribe(userId: number, plan: PlanRow, grantedBy: number): Promise<number> {
    const price = Number(plan.price);
    try {
      const id = await this.transact(async (t) => {
        const running = await this.repo.active(userId, t);
        if (running.length >= MAX_ACTIVE_SUBSCRIPTIONS) throw new AppError('PLAN_TOO_MANY', 200, undefined, { max: MAX_ACTIVE_SUBSCRIPTIONS });
        const subId = await this.newSubscription(t, userId, plan, grantedBy, running);
        if (!grantedBy && !(await this.debit(t, userId, subId, price))) throw new ShortBalance();
        return subId;
      });
      this.deps.onUserChange(userId);
      return id;
    } catch (err) {
      if (err instanceof ShortBalance) throw await this.shortBalance(userId, price);
      throw err;
    }
  }

  /**
   * A plan paid online (docs/ledger.md "Plans paid online"), inside the payment's transaction just
   * after `credited` quota reached the wallet: the plan bought from the wallet as "Buy" does, at
   * its price now, which may not exceed what was paid (a lower price leaves the difference in the
   * wallet). When it cannot be bought the credit stays in the wallet and the answer says why.
   * Nothing here throws for a refusal: the payment's transaction must commit either way.
   */
  async buyPaid(t: Transaction<Database>, order: { user_id: number; plan_id: number; trade_no: string }, credited: number): Promise<PaidPlanOutcome> {
    const plan = await this.repo.get(order.plan_id, t);
    if (!plan) return { error: 'PLAN_PAID_PLAN_GONE' };
    if (Number(plan.status) !== PlanStatus.OnSale) return { error: 'PLAN_PAID_OFF_SALE' };
    const price = Number(plan.price);
    if (price > credited) return { error: 'PLAN_PAID_PRICE_RAISED' };
    // The wallet's row is locked by the credit already: a user's concurrent payments queue here.
    const running = await this.repo.active(order.user_id, t);
    if (running.length >= MAX_ACTIVE_SUBSCRIPTIONS) return { error: 'PLAN_PAID_TOO_MANY' };
    const subId = await this.newSubscription(t, order.user_id, plan, 0, running);
    // The wallet holds at least `credited` under its lock: a refusal here is a broken invariant, rolled back whole.
    if (!(await this.debit(t, order.user_id, subId, price))) throw new Error(`plan order ${order.trade_no}: the wallet did not cover the price just credited`);
    return { subscriptionId: subId, name: plan.name };
  }

  /** After a paid plan order committed: the user's running subscriptions may have changed. */
  afterPaid(userId: number): void {
    this.deps.onUserChange(userId);
  }

  private async shortBalance(userId: number, price: number): Promise<AppError> {
    const u = await this.deps.db.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirst();
    return new AppError('PLAN_BALANCE_INSUFFICIENT', 200, undefined, { price: this.money(price), balance: this.money(Number(u?.quota ?? 0)) });
  }

  async buy(userId: number, planId: number): Promise<Subscription> {
    const plan = await this.repo.get(planId);
    if (!plan) throw new AppError('PLAN_NOT_FOUND');
    if (Number(plan.status) !== PlanStatus.OnSale) throw new AppError('PLAN_NOT_FOR_SALE');
    return this.subscriptionOf(userId, await this.subscribe(userId, plan, 0));
  }

  async grant(adminId: number, userId: number, planId: number): Promise<Subscription> {
    const plan = await this.repo.get(planId);
    if (!plan) throw new AppError('PLAN_NOT_FOUND');
    const user = await this.deps.db.db.selectFrom('users').select('id').where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!user) throw new AppError('USER_NOT_FOUND');
    return this.subscriptionOf(userId, await this.subscribe(userId, plan, adminId));
  }

  /**
   * Extends a running subscription by its duration, paid from the wallet: from its end, or from now
   * when `from` says so (a renewal after the end). False when the wallet does not cover it.
   */
  private async extend(sub: UserPlanRow, t: Transaction<Database>, now: number): Promise<boolean> {
    const n = Number(sub.renewals) + 1;
    const price = Number(sub.price);
    if (price > 0) {
      // The wallet read under its lock first: a debit refused inside this transaction would leave its entry behind.
      const q = t.selectFrom('users').select('quota').where('id', '=', Number(sub.user_id));
      const wallet = await (this.deps.db.kind === 'sqlite' ? q : q.forUpdate()).executeTakeFirst();
      if (Number(wallet?.quota ?? 0) < price) return false;
      if ((await this.deps.quotaLedger.move({ kind: 'plan', userId: Number(sub.user_id), quota: -price, ref: `plan:${sub.id}:${n}` }, t)) !== 'applied') throw new ShortBalance();
    }
    const from = Math.max(Number(sub.expires_at), now);
    return this.repo.updateSubscription(t, Number(sub.id), SubscriptionStatus.Active, { expires_at: from + Number(sub.duration_days) * DAY_SEC, renewals: n });
  }

  async renew(userId: number, id: number): Promise<Subscription> {
    let price = 0;
    try {
      await this.transact(async (t) => {
        const sub = await this.repo.lockSubscription(t, id);
        if (!sub || Number(sub.user_id) !== userId) throw new AppError('PLAN_SUBSCRIPTION_NOT_FOUND');
        if (Number(sub.status) !== SubscriptionStatus.Active) throw new AppError('PLAN_SUBSCRIPTION_ENDED');
        if (Number(sub.duration_days) <= 0 || Number(sub.expires_at) === 0) throw new AppError('PLAN_RENEW_UNLIMITED');
        price = Number(sub.price);
        if (!(await this.extend(sub, t, nowSec()))) throw new ShortBalance();
      });
    } catch (err) {
      if (err instanceof ShortBalance) throw await this.shortBalance(userId, price);
      throw err;
    }
    this.deps.onUserChange(userId);
    return this.subscriptionOf(userId, id);
  }

  /** Ends a running subscription now; nothing is refunded. `userId` 0: an admin's revocation of anyone's. */
  async cancel(userId: number, id: number): Promise<void> {
    const sub = await this.repo.lockSubscription(this.deps.db.db, id);
    if (!sub || (userId && Number(sub.user_id) !== userId)) throw new AppError('PLAN_SUBSCRIPTION_NOT_FOUND');
    const ended = await this.repo.updateSubscription(this.deps.db.db, id, SubscriptionStatus.Active, { status: SubscriptionStatus.Cancelled, auto_renew: 0, ended_at: nowSec() });
    if (!ended) throw new AppError('PLAN_SUBSCRIPTION_ENDED');
    this.deps.onUserChange(Number(sub.user_id));
  }

  async setAutoRenew(userId: number, id: number, on: boolean): Promise<Subscription> {
    const sub = await this.repo.lockSubscription(this.deps.db.db, id);
    if (!sub || Number(sub.user_id) !== userId) throw new AppError('PLAN_SUBSCRIPTION_NOT_FOUND');
    if (on && (Number(sub.duration_days) <= 0 || Number(sub.expires_at) === 0)) throw new AppError('PLAN_RENEW_UNLIMITED');
    if (!(await this.repo.updateSubscription(this.deps.db.db, id, SubscriptionStatus.Active, { auto_renew: on ? 1 : 0 }))) throw new AppError('PLAN_SUBSCRIPTION_ENDED');
    return this.subscriptionOf(userId, id);
  }

  /** Sets the draw order: `ids` must be every running subscription of the user, once. */
  async order(userId: number, ids: number[]): Promise<void> {
    await this.transact(async (t) => {
      const running = await this.repo.active(userId, t);
      const mine = new Set(running.map((r) => Number(r.id)));
      if (ids.length !== mine.size || new Set(ids).size !== ids.length || ids.some((i) => !mine.has(i))) throw new AppError('PLAN_ORDER_INVALID');
      for (const [i, id] of ids.entries()) await this.repo.updateSubscription(t, id, SubscriptionStatus.Active, { priority: i });
    });
    this.deps.onUserChange(userId);
  }

  /**
   * Subscriptions whose end has come (one node runs this: a job lock): renewed from the wallet
   * when set to renew and the wallet covers it, else ended. Each is its own transaction.
   */
  async expireDue(now = nowSec()): Promise<{ renewed: number; expired: number }> {
    let renewed = 0;
    let expired = 0;
    for (const due of await this.repo.due(now)) {
      const result = await this.transact(async (t) => {
        const sub = await this.repo.lockSubscription(t, Number(due.id));
        if (!sub || Number(sub.status) !== SubscriptionStatus.Active || Number(sub.expires_at) === 0 || Number(sub.expires_at) > now) return 'skip';
        // Renewed from its end: the days stay contiguous whatever time the job ran.
        if (Number(sub.auto_renew) && Number(sub.duration_days) > 0 && (await this.extend(sub, t, Number(sub.expires_at)))) return 'renewed';
        await this.repo.updateSubscription(t, Number(sub.id), SubscriptionStatus.Active, { status: SubscriptionStatus.Expired, auto_renew: 0, ended_at: Number(sub.expires_at) });
        return 'expired';
      });
      if (result === 'skip') continue;
      if (result === 'renewed') renewed += 1;
      else expired += 1;
      this.deps.onUserChange(Number(due.user_id));
    }
    return { renewed, expired };
  }

  // ---- meters ----

  /**
   * The windows a user sees: their own limits and their running subscriptions' allowances, and
   * with `tokens` those of their tokens too (or of the one token given).
   */
  async meters(userId: number, opts: { tokens?: 'all' | number } = {}): Promise<WindowMeter[]> {
    const db = this.deps.db.db;
    const [user, running] = await Promise.all([db.selectFrom('users').select(['id', 'period_limits']).where('id', '=', userId).executeTakeFirst(), this.repo.active(userId)]);
    if (!user) return [];
    const sources: MeterSource[] = [userSource(user), ...running.map(planSource)];
    if (opts.tokens !== undefined) {
      let q = db.selectFrom('tokens').select(['id', 'name', 'period_limits']).where('user_id', '=', userId).where('deleted_at', 'is', null).where('period_limits', '<>', '');
      if (opts.tokens !== 'all') q = q.where('id', '=', opts.tokens);
      for (const t of await q.limit(200).execute()) sources.push(tokenSource(t));
    }
    return windowMeters(this.deps.db, sources.filter((s) => hasPeriodLimits(s.limits)), this.timeZone(), nowSec());
  }
}
