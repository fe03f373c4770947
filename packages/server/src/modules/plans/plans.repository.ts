import type { Kysely, Transaction } from 'kysely';
import { PlanStatus, SubscriptionStatus } from '@modelgate/shared/api';
import { insertReturningId, type Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';
import type { PlanRow, PlansTable, UserPlanRow, UserPlansTable } from '../../db/schema-plans.js';
import type { Insertable, Updateable } from 'kysely';

type Exec = Kysely<Database> | Transaction<Database>;

/** Plans and subscriptions (docs/ledger.md "Windows and plans"); every subscription query is scoped to its owner where a user asks. */
export class PlansRepository {
  constructor(private readonly handle: Db) {}

  private get db() {
    return this.handle.db;
  }

  get kind() {
    return this.handle.kind;
  }

  list(onSaleOnly = false): Promise<PlanRow[]> {
    let q = this.db.selectFrom('plans').selectAll();
    if (onSaleOnly) q = q.where('status', '=', PlanStatus.OnSale);
    return q.orderBy('price').orderBy('id').execute();
  }

  get(id: number, t: Exec = this.db): Promise<PlanRow | undefined> {
    return t.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insert(row: Insertable<PlansTable>): Promise<number> {
    return insertReturningId(this.handle.kind, this.db.insertInto('plans').values(row));
  }

  async update(id: number, patch: Updateable<PlansTable>): Promise<void> {
    await this.db.updateTable('plans').set(patch).where('id', '=', id).execute();
  }

  async remove(id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('plans').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Running subscriptions per plan. */
  async activeCounts(): Promise<Map<number, number>> {
    const rows = await this.db
      .selectFrom('user_plans')
      .select((eb) => ['plan_id', eb.fn.countAll<number>().as('n')])
      .where('status', '=', SubscriptionStatus.Active)
      .groupBy('plan_id')
      .execute();
    return new Map(rows.map((r) => [Number(r.plan_id), Number(r.n)]));
  }

  /** A user's subscriptions: running ones first in draw order, then the ended ones, newest first. */
  async subscriptions(userId: number, limit = 100): Promise<UserPlanRow[]> {
    const rows = await this.db.selectFrom('user_plans').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
    const active = rows.filter((r) => Number(r.status) === SubscriptionStatus.Active).sort((a, b) => Number(a.priority) - Number(b.priority) || Number(a.id) - Number(b.id));
    return [...active, ...rows.filter((r) => Number(r.status) !== SubscriptionStatus.Active)];
  }

  active(userId: number, t: Exec = this.db): Promise<UserPlanRow[]> {
    return t.selectFrom('user_plans').selectAll().where('user_id', '=', userId).where('status', '=', SubscriptionStatus.Active).orderBy('priority').orderBy('id').execute();
  }

  /** A subscription read under its row lock (inside `t`), or without one. */
  lockSubscription(t: Exec, id: number): Promise<UserPlanRow | undefined> {
    const q = t.selectFrom('user_plans').selectAll().where('id', '=', id);
    return (this.handle.kind === 'sqlite' ? q : q.forUpdate()).executeTakeFirst();
  }

  insertSubscription(t: Exec, row: Insertable<UserPlansTable>): Promise<number> {
    return insertReturningId(this.handle.kind, t.insertInto('user_plans').values(row));
  }

  /** Changes a subscription only while it has `status` (a concurrent end wins once). */
  async updateSubscription(t: Exec, id: number, status: number, patch: Updateable<UserPlansTable>): Promise<boolean> {
    const r = await t.updateTable('user_plans').set(patch).where('id', '=', id).where('status', '=', status).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Running subscriptions whose end has come (the expiry job). */
  due(now: number, limit = 200): Promise<UserPlanRow[]> {
    return this.db
      .selectFrom('user_plans')
      .selectAll()
      .where('status', '=', SubscriptionStatus.Active)
      .where('expires_at', '>', 0)
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
  }

  /**
   * Deletes window charges made before `before` (Unix seconds), a batch of requests at a time: the
   * reconciliation only adds up running periods, and none runs longer than a month.
   */
  async pruneCharges(before: number, batch = 2000): Promise<number> {
    let total = 0;
    for (;;) {
      const ids = (await this.db.selectFrom('window_charges').select('request_id').distinct().where('created_at', '<', before).limit(batch).execute()).map((r) => r.request_id);
      if (!ids.length) break;
      const r = await this.db.deleteFrom('window_charges').where('request_id', 'in', ids).where('created_at', '<', before).executeTakeFirst();
      total += Number(r.numDeletedRows);
      if (ids.length < batch) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  }
}
