import type { Selectable } from 'kysely';
import type { Def, Id } from './schema-columns.js';

/** Tables of periodic limits and plans (migration 0021; docs/ledger.md "Windows and plans"). */

/** Migration 0021: a plan an admin sells (docs/ledger.md "Windows and plans"). */
export interface PlansTable {
  id: Id;
  name: string;
  description: Def<string>;
  /** In quota, paid from the wallet. */
  price: Def<number>;
  /** 0 = never expires. */
  duration_days: Def<number>;
  /** Allowances per window (shared/periods.ts PeriodLimits, JSON). */
  allowances: Def<string>;
  /** Comma-separated models / groups the plan pays for; '' = any. */
  models: Def<string>;
  groups: Def<string>;
  /** 1: usage beyond the plan falls through to the wallet; 0: refused. */
  fall_through: Def<number>;
  /** 1 on sale, 2 not on sale. */
  status: Def<number>;
  created_at: Def<number>;
  updated_at: Def<number>;
}

/** Migration 0021: a user's subscription, a snapshot of the plan when bought or granted. */
export interface UserPlansTable {
  id: Id;
  user_id: number;
  plan_id: number;
  name: Def<string>;
  allowances: Def<string>;
  models: Def<string>;
  groups: Def<string>;
  fall_through: Def<number>;
  price: Def<number>;
  duration_days: Def<number>;
  /** 1 active, 2 cancelled, 3 expired. */
  status: Def<number>;
  auto_renew: Def<number>;
  /** Draw order: lower first. */
  priority: Def<number>;
  starts_at: Def<number>;
  /** 0 = never. */
  expires_at: Def<number>;
  renewals: Def<number>;
  /** The admin who granted it; 0 when bought. */
  granted_by: Def<number>;
  created_at: Def<number>;
  ended_at: Def<number>;
}

/** Migration 0021: the current period of one account's window (`u<id>`, `t<id>`, `s<id>`). */
export interface WindowCountersTable {
  account: string;
  win: string;
  period_start: Def<number>;
  period_end: Def<number>;
  quota_used: Def<number>;
  requests_used: Def<number>;
}

/** Migration 0021: what one request charged one window. */
export interface WindowChargesTable {
  request_id: string;
  account: string;
  win: string;
  period_start: Def<number>;
  quota: Def<number>;
  requests: Def<number>;
  created_at: Def<number>;
}

export type PlanRow = Selectable<PlansTable>;
export type UserPlanRow = Selectable<UserPlansTable>;
